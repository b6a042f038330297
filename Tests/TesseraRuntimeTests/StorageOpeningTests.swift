import Foundation
import Testing
@testable import TesseraRuntime
import TesseraStorage
import TesseraTestFixtures

/// A plugin database opened on a thread of its own during a start, and taken by the start
/// (`StorageOpening`): the start gets that very database whether the open ends before or after it
/// asks, and a database that could not be opened is `nil`.
@Suite(.hangWatchdog) struct StorageOpeningTests {
    func database(_ label: String) throws -> SQLitePluginStorage {
        let folder = Fixtures.temporaryDirectory(label)
        return try SQLitePluginStorage(pluginID: "dev.test.opening", path: folder + "/storage.sqlite", now: { Date() })
    }

    @Test func aDatabaseOpenedBeforeTheStartAsksIsTakenAsItIs() async throws {
        let storage = try database("opened-first")
        let opening = StorageOpening()
        opening.opened(storage)
        #expect(await opening.value === storage)
    }

    @Test func aStartThatAsksFirstGetsTheDatabaseWhenItOpens() async throws {
        let storage = try database("asked-first")
        let opening = StorageOpening()
        let asked = Task { await opening.value }
        while !opening.isAwaited { await Task.yield() }
        // Given from another thread, as the opening queue does, while the start waits.
        DispatchQueue.global().async { opening.opened(storage) }
        #expect(await asked.value === storage)
    }

    @Test func aDatabaseThatCouldNotBeOpenedIsNil() async {
        let opening = StorageOpening()
        DispatchQueue.global().async { opening.opened(nil) }
        #expect(await opening.value == nil)
    }

    @Test func aDatabaseKeptByAReloadIsThereAtOnce() async throws {
        let storage = try database("kept")
        #expect(await StorageOpening(storage).value === storage)
    }
}
