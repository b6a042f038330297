import Foundation
import Synchronization
import Testing
import TesseraClock
import TesseraLocation
import TesseraSDK

/// Collects what a subscriber was handed.
final class Received: Sendable {
    private let fixes = Mutex<[LocationFix]>([])
    func append(_ fix: LocationFix) { fixes.withLock { $0.append(fix) } }
    var all: [LocationFix] { fixes.withLock { $0 } }
    func of(_ device: String) -> [Date] { all.filter { $0.deviceID == device }.map(\.timestamp) }
}

struct SubscriberFailed: Error {}

@Suite struct LocationFeedTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let clock = VirtualClockSource(start: now)

    static func fix(_ device: String, at offset: TimeInterval, lat: Double = 49.2) -> LocationFix {
        LocationFix(latitude: lat, longitude: 16.6, timestamp: now + offset, deviceID: device)
    }

    @Test func aShuffledBatchReachesSubscribersInTimestampOrderPerDevice() async {
        let feed = LocationFeed(clock: clock)
        let received = Received()
        feed.subscribe("p") { received.append($0) }
        let batch = [Self.fix("a", at: -3), Self.fix("b", at: -1), Self.fix("a", at: -5), Self.fix("b", at: -9), Self.fix("a", at: -4)]
        let report = await feed.ingest(batch)
        #expect(report.accepted == 5 && report.rejectedCount == 0)
        #expect(received.of("a") == [-5, -4, -3].map { Self.now + $0 })
        #expect(received.of("b") == [-9, -1].map { Self.now + $0 })
        // A later batch may not go back in time for a device, nor repeat an instant.
        let late = await feed.ingest([Self.fix("a", at: -10), Self.fix("a", at: -3), Self.fix("b", at: 0)])
        #expect(late.rejected == [.outOfOrder: 1, .duplicate: 1] && late.accepted == 1)
        #expect(await feed.latestFix(deviceID: "a")?.timestamp == Self.now - 3)
        #expect(await feed.latestFix(deviceID: "b")?.timestamp == Self.now)
        #expect(await feed.latestFix(deviceID: "nobody") == nil)
    }

    @Test func aThrowingSubscriberDoesNotStopAnotherNorTheFeed() async {
        let lines = Mutex<[String]>([])
        let feed = LocationFeed(clock: clock, log: { line in lines.withLock { $0.append(line) } })
        let received = Received()
        feed.subscribe("broken") { _ in throw SubscriberFailed() }
        feed.subscribe("good") { received.append($0) }
        let report = await feed.ingest([Self.fix("a", at: -2), Self.fix("a", at: -1)])
        #expect(report.accepted == 2 && report.subscriberFailures == 2)
        #expect(received.all.count == 2)
        #expect(lines.withLock { $0.count } == 2 && lines.withLock { $0[0] }.contains("broken"))
        #expect(feed.counters["subscriberFailures"] == 2)
        // Still working afterwards.
        #expect(await feed.ingest([Self.fix("a", at: 0)]).accepted == 1)
        #expect(received.all.count == 3)
    }

    @Test func countersHoldEveryReason() async {
        let feed = LocationFeed(clock: clock, futureMargin: 60)
        let batch = [
            Self.fix("a", at: 0), Self.fix("a", at: 0), Self.fix("a", at: 61), Self.fix("a", at: 0, lat: 95),
            Self.fix("a", at: 0, lat: .nan), LocationFix(latitude: 1, longitude: 1, accuracy: -3, timestamp: Self.now, deviceID: "b"),
        ]
        let report = await feed.ingest(batch, malformed: 2)
        #expect(report.rejected == [.duplicate: 1, .inTheFuture: 1, .outOfRange: 1, .nonFinite: 1, .negativeAccuracy: 1, .malformed: 2])
        #expect(feed.counters == [
            "accepted": 1, "subscriberFailures": 0, "malformed": 2, "nonFinite": 1, "outOfRange": 1,
            "negativeAccuracy": 1, "inTheFuture": 1, "duplicate": 1, "outOfOrder": 0,
        ])
    }

    @Test func concurrentBatchesNeverInterleaveAgainstTimestampOrder() async {
        let feed = LocationFeed(clock: clock)
        let received = Received()
        feed.subscribe("slow") { fix in
            await Task.yield()  // give other batches every chance to cut in
            received.append(fix)
        }
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                let offset = -Double((i * 7919) % 40)  // a fixed shuffle of −39…0
                group.addTask { _ = await feed.ingest([Self.fix("a", at: offset), Self.fix("a", at: offset - 0.5)]) }
            }
        }
        let times = received.of("a")
        #expect(!times.isEmpty)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
        #expect(feed.counters["accepted"] == times.count)
    }

    @Test func unsubscribedHandlersAreNotCalledAndResubscribingReplaces() async {
        let feed = LocationFeed(clock: clock)
        let first = Received(), second = Received()
        feed.subscribe("p") { first.append($0) }
        feed.subscribe("p") { second.append($0) }
        _ = await feed.ingest([Self.fix("a", at: -2)])
        feed.unsubscribe("p")
        feed.unsubscribe("never-there")
        _ = await feed.ingest([Self.fix("a", at: -1)])
        #expect(first.all.isEmpty && second.all.count == 1)
    }

    @Test func decodedOwnTracksFlowsThroughAndGarbageIsOnlyCounted() async {
        let feed = LocationFeed(clock: clock)
        let body = #"[{"_type":"location","lat":"NaN","lon":16,"tst":1800000000,"tid":"jp"},{"_type":"location","lat":49,"lon":16,"tst":1799999990,"tid":"jp"},{"oops":1}]"#
        let batch = OwnTracksDecoder().decode(Array(body.utf8))
        let report = await feed.ingest(batch.fixes, malformed: batch.malformed.count)
        #expect(report.accepted == 1 && report.rejected == [.nonFinite: 1, .malformed: 1])
        for garbage in ["", "[", "\u{0}", String(repeating: "[", count: 10_000)] {
            let b = OwnTracksDecoder().decode(Array(garbage.utf8))
            _ = await feed.ingest(b.fixes, malformed: b.malformed.count)
        }
        #expect(feed.counters["malformed"] == 5)
    }
}
