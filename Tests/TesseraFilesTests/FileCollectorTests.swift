import Foundation
import Testing
import TesseraClock
import TesseraFiles
import TesseraSDK
import TesseraTestFixtures

/// Collection on a virtual clock: the grace period, links, and the race with a link written while
/// a collection runs.
@Suite(.hangWatchdog) struct FileCollectorTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    struct Setup {
        let clock = VirtualClockSource(start: FileCollectorTests.start)
        let fixture: StoreFixture
        let collector: FileCollector
        let files: PluginFileChannel

        init(_ label: String) {
            let clock = self.clock
            fixture = StoreFixture(label, now: { clock.now() })
            collector = FileCollector(store: fixture.store, clock: clock, every: 3600, grace: 86_400)
            files = fixture.channel("baby.diary")
        }

        func advance(_ seconds: TimeInterval) { _ = clock.set(to: clock.now().addingTimeInterval(seconds)) }

        func path(_ file: FileDescriptor) -> String {
            fixture.store.directory(of: "baby.diary") + "/objects/\(file.address.prefix(2))/\(file.address)"
        }
    }

    @Test func anUnlinkedFileIsKeptForTheGracePeriodThenCollected() async throws {
        let s = Setup("grace")
        let loose = try await s.files.put(Samples.jpeg)
        let linked = try await s.files.put(Samples.png)
        try await s.files.link(linked.address, table: "posts", id: "1")
        s.advance(86_399)
        #expect(try await s.collector.collect(now: s.clock.now()).isEmpty, "within the grace period")
        s.advance(2)
        #expect(try await s.collector.collect(now: s.clock.now()) == ["baby.diary/\(loose.address)"])
        #expect(!FileManager.default.fileExists(atPath: s.path(loose)))
        #expect(try await s.files.stat(linked.address) == linked)
        // Its last link removed, the other goes at the next collection.
        try await s.files.unlink(linked.address, table: "posts", id: "1")
        #expect(try await s.collector.collect(now: s.clock.now()) == ["baby.diary/\(linked.address)"])
        await #expect(throws: PluginError.self) { try await s.files.read(linked.address) }
    }

    @Test func aLinkWrittenAfterTheScanStartedKeepsItsFile() async throws {
        let s = Setup("race")
        let photo = try await s.files.put(Samples.jpeg)
        let other = try await s.files.put(Samples.png)
        s.advance(2 * 86_400)
        let files = s.files
        let removed = try await s.collector.collect(now: s.clock.now()) { candidates in
            // The scan found both unreferenced; a record now takes one of them.
            #expect(Set(candidates) == ["baby.diary/\(photo.address)", "baby.diary/\(other.address)"])
            try await files.link(photo.address, table: "posts", id: "7")
        }
        #expect(removed == ["baby.diary/\(other.address)"])
        #expect(try await s.files.read(photo.address) == Samples.jpeg)
        #expect(FileManager.default.fileExists(atPath: s.path(photo)))
    }

    @Test func aFilePutAgainAfterTheScanStartedKeepsItsFile() async throws {
        let s = Setup("race-put")
        let photo = try await s.files.put(Samples.jpeg)
        s.advance(2 * 86_400)
        let files = s.files
        let removed = try await s.collector.collect(now: s.clock.now()) { _ in
            _ = try await files.put(Samples.jpeg)  // its grace period starts again
        }
        #expect(removed.isEmpty)
        #expect(try await s.files.read(photo.address) == Samples.jpeg)
    }

    @Test func theCollectorRunsOnTheHostsClock() async throws {
        let s = Setup("clock")
        let scheduler = TimerScheduler(store: try SQLiteTimerStore(path: s.fixture.directory + "/host.sqlite"), clock: s.clock) { _, _ in .delivered }
        scheduler.add(s.collector)
        let loose = try await s.files.put(Samples.jpeg)
        _ = try await scheduler.advance(to: s.clock.now().addingTimeInterval(86_400 + 3600))
        await #expect(throws: PluginError.self) { try await s.files.stat(loose.address) }
        #expect(!FileManager.default.fileExists(atPath: s.path(loose)))
    }
}
