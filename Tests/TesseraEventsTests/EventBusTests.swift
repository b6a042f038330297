import Foundation
import Synchronization
import Testing
import TesseraClock
import TesseraEvents
import TesseraSDK
import TesseraTestFixtures

/// The events capability on its own: the persisted log and the bus, on a virtual clock, with a
/// recording subscriber in place of the host.
@Suite struct EventBusTests {
    /// What the bus handed over, and how each hand-over should end.
    final class Subscriber: Sendable {
        private let state = Mutex<(received: [String], failuresLeft: Int, active: Bool)>(([], 0, true))
        init(failures: Int = 0) { state.withLock { $0.failuresLeft = failures } }
        var received: [String] { state.withLock { $0.received } }
        func setActive(_ active: Bool) { state.withLock { $0.active = active } }
        func take(_ event: PublishedEvent) -> EventBus.Outcome {
            state.withLock { s in
                guard s.active else { return .notActive }
                if s.failuresLeft > 0 { s.failuresLeft -= 1; return .failed("not yet") }
                s.received.append("\(event.name)#\(event.sequence)")
                return .delivered
            }
        }
    }

    func bus(_ name: String, clock: VirtualClockSource, subscriber: Subscriber) throws -> EventBus {
        let log = try EventLog(path: Fixtures.temporaryDirectory("events-\(name)") + "/events.sqlite")
        let bus = EventBus(log: log, clock: clock) { _, event in subscriber.take(event) }
        bus.setSubscriptions([.init(subscriber: "b", publisher: "a", names: ["added", "removed"])])
        return bus
    }

    @Test func eventsArriveInPublishOrderAndOnlyTheConsumedNames() async throws {
        let clock = VirtualClockSource(start: Date(timeIntervalSince1970: 1_767_225_600))
        let subscriber = Subscriber()
        let bus = try bus("order", clock: clock, subscriber: subscriber)
        try bus.publish("a", name: "added", payload: [:])
        try bus.publish("a", name: "renamed", payload: [:])  // not consumed
        try bus.publish("a", name: "removed", payload: [:])
        try bus.publish("z", name: "added", payload: [:])  // another publisher
        await bus.settle()
        #expect(subscriber.received == ["added#1", "removed#3"])
        #expect(try bus.status().first?.cursor.delivered == 3, "the cursor passes the event it skipped")
    }

    @Test func aFailingSubscriberIsRetriedWithBackoffOnTheClockAndKeepsItsOrder() async throws {
        let clock = VirtualClockSource(start: Date(timeIntervalSince1970: 1_767_225_600))
        let subscriber = Subscriber(failures: 2)
        let bus = try bus("retry", clock: clock, subscriber: subscriber)
        try bus.publish("a", name: "added", payload: [:])
        try bus.publish("a", name: "removed", payload: [:])
        await bus.settle()
        #expect(subscriber.received.isEmpty)
        #expect(try bus.nextDue() == clock.now().addingTimeInterval(1), "first retry after 1 s")
        _ = clock.set(to: clock.now().addingTimeInterval(1))
        try await bus.runDue(now: clock.now())
        #expect(subscriber.received.isEmpty)
        #expect(try bus.nextDue() == clock.now().addingTimeInterval(2), "then after 2 s")
        #expect(try bus.status().first?.cursor.lastError == "not yet")
        _ = clock.set(to: clock.now().addingTimeInterval(2))
        try await bus.runDue(now: clock.now())
        #expect(subscriber.received == ["added#1", "removed#2"], "held back behind the failing one, then in order")
        #expect(try bus.nextDue() == nil)
    }

    @Test func aSubscriberThatIsNotActiveGetsWhatItMissedWhenItIs() async throws {
        let clock = VirtualClockSource(start: Date(timeIntervalSince1970: 1_767_225_600))
        let subscriber = Subscriber()
        subscriber.setActive(false)
        let bus = try bus("inactive", clock: clock, subscriber: subscriber)
        try bus.publish("a", name: "added", payload: [:])
        await bus.settle()
        #expect(subscriber.received.isEmpty)
        #expect(try bus.status().first?.behind == 1)
        subscriber.setActive(true)
        await bus.settle()
        #expect(subscriber.received == ["added#1"])
    }
}
