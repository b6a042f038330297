import Foundation
import Synchronization
import Testing
import TesseraClock
import TesseraLocation
import TesseraSDK

@Suite struct GPXReplayTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func walk() throws -> [GPXPoint] {
        try GPXReader().read(contentsOf: fixtureURL("walk.gpx")).trackPoints
    }

    @Test func fixIIsDueAtStartPlusItsOffsetOverTheSpeed() throws {
        let replay = try GPXReplay(points: Self.walk(), speed: 60, deviceID: "walker")
        let fixes = replay.schedule(startingAt: Self.start)
        #expect(fixes.count == 361)
        // 10 s between points at 60× is 1/6 s; the hour takes one minute.
        #expect(fixes.indices.allSatisfy { abs(fixes[$0].timestamp.timeIntervalSince(Self.start) - Double($0) * 10 / 60) < 1e-6 })
        #expect(fixes.last!.timestamp.timeIntervalSince(Self.start) == 60)
        #expect(fixes.allSatisfy { $0.deviceID == "walker" })
        // About 14 m per 10 s recorded, so about 84 m/s apparent at 60×.
        let speed = try #require(fixes[1].speed)
        #expect(abs(speed - 84) < 1, "\(speed)")
        #expect(fixes[0].altitude == 210 && fixes[0].course != nil && fixes[0].speed == nil)
    }

    /// Runs a replay on a virtual clock, moving the clock to each sleeper's deadline in turn, and
    /// records every fix with the clock's time when it was emitted.
    static func replayOnVirtualClock(_ replay: GPXReplay) async throws -> [(LocationFix, Date)] {
        let clock = VirtualClockSource(start: start)
        let seen = Mutex<[(LocationFix, Date)]>([])
        let task = Task { try await replay.run(on: clock) { fix in seen.withLock { $0.append((fix, clock.now())) } } }
        while seen.withLock({ $0.count }) < replay.points.count {
            // Wait (in real time, briefly) until the replay sleeps, then wake it.
            if let deadline = clock.nextSleeperDeadline { clock.set(to: deadline) } else { await Task.yield() }
        }
        try await task.value
        return seen.withLock { $0 }
    }

    @Test func twoRunsOnAVirtualClockEmitTheSameFixesAtTheSameInstants() async throws {
        let replay = try GPXReplay(points: Self.walk(), speed: 60, deviceID: "walker")
        let first = try await Self.replayOnVirtualClock(replay)
        let second = try await Self.replayOnVirtualClock(replay)
        #expect(first.count == 361)
        #expect(first.map(\.0) == second.map(\.0))
        #expect(first.map(\.1) == second.map(\.1))
        // Each fix is emitted exactly when it is due, and carries that instant.
        #expect(first.allSatisfy { $0.0.timestamp == $0.1 })
        #expect(first.map(\.0) == replay.schedule(startingAt: Self.start))
    }

    @Test func cancellingAWaitingReplayStopsIt() async throws {
        let clock = VirtualClockSource(start: Self.start)
        let replay = try GPXReplay(points: Self.walk(), speed: 1, deviceID: "walker")
        let task = Task { try await replay.run(on: clock) { _ in } }
        while clock.sleeperCount == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func pointsWithoutTimesAreSpreadAtWalkingSpeed() throws {
        // Three points 0.001° of latitude apart (about 111 m) on one meridian.
        let points = (0..<3).map { GPXPoint(latitude: 49 + Double($0) * 0.001, longitude: 16) }
        let fixes = try GPXReplay(points: points, speed: 1, deviceID: "d").schedule(startingAt: Self.start)
        let step = GeoPoint(latitude: 49, longitude: 16).distance(to: GeoPoint(latitude: 49.001, longitude: 16))
        #expect(abs(fixes[1].timestamp.timeIntervalSince(Self.start) - step / GPXReplay.walkingSpeed) < 1e-6)
        #expect(abs(fixes[2].speed! - GPXReplay.walkingSpeed) < 1e-6)
    }

    @Test func refusesPartlyTimedBackwardsOrSpeedlessReplays() {
        let t = Self.start
        let partly = [GPXPoint(latitude: 1, longitude: 2, time: t), GPXPoint(latitude: 1, longitude: 2)]
        let backwards = [GPXPoint(latitude: 1, longitude: 2, time: t), GPXPoint(latitude: 1, longitude: 2, time: t - 1)]
        #expect { try GPXReplay(points: partly, deviceID: "d") } throws: { ($0 as? GPXReplayError)?.message.contains("1 of 2 points") == true }
        #expect { try GPXReplay(points: backwards, deviceID: "d") } throws: { ($0 as? GPXReplayError)?.message.contains("backwards at point 2") == true }
        #expect(throws: GPXReplayError.self) { try GPXReplay(points: [], speed: 0, deviceID: "d") }
        #expect(throws: GPXReplayError.self) { try GPXReplay(points: [], speed: .nan, deviceID: "d") }
    }
}
