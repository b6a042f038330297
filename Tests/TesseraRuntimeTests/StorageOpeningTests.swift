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

    /// `PRAGMA max_page_count` of the database's writing connection.
    func pageCap(_ storage: SQLitePluginStorage) throws -> Int64 {
        try storage.database.withConnection { try $0.fetchOne("PRAGMA max_page_count")?.first?.integer ?? -1 }
    }

    @Test func aQuotaAskedForWhileOpeningIsSetBeforeTheDatabaseIsHandedOver() async throws {
        let storage = try database("quota-while-opening")
        let uncapped = try pageCap(storage)
        let opening = StorageOpening()
        opening.limitSizeWhenOpened(toMegabytes: 1)
        opening.opened(storage)
        let taken = try #require(await opening.value)
        #expect(try pageCap(taken) == 1_048_576 / 4_096 && uncapped > 1_000_000)
    }

    @Test func aQuotaAskedForAfterTheHandOverIsLeftToTheCommit() async throws {
        let storage = try database("quota-after")
        let uncapped = try pageCap(storage)
        let opening = StorageOpening()
        opening.opened(storage)
        opening.limitSizeWhenOpened(toMegabytes: 1)
        #expect(try pageCap(#require(await opening.value)) == uncapped)
    }

    @Test func aConnectionThatCarriesTheQuotaAlreadyIsLeftAsItIs() throws {
        let storage = try database("quota-twice")
        try storage.limitSize(toMegabytes: 1)
        // Changed behind the storage's back: a second limit of the same quota does not touch it...
        _ = try storage.database.withConnection { try $0.fetchOne("PRAGMA max_page_count = 1000") }
        try storage.limitSize(toMegabytes: 1)
        #expect(try pageCap(storage) == 1_000)
        // ...another quota does.
        try storage.limitSize(toMegabytes: 2)
        #expect(try pageCap(storage) == 2 * 1_048_576 / 4_096)
    }
}

