import Foundation
import TesseraEvents
import TesseraSDK

/// The events plugins published, for the SSE stream, `tessera events list` and tests.
extension PluginHost {
    /// Events after `position` in the host's log, oldest first, with their positions.
    public func publishedEvents(afterPosition position: Int64, limit: Int = 1000) throws -> [(position: Int64, event: PublishedEvent)] {
        try events.log.events(afterPosition: position, limit: limit)
    }

    /// The events `publisher` published, oldest first.
    public func publishedEvents(of publisher: String) throws -> [PublishedEvent] {
        try events.log.events(of: publisher)
    }

    /// The position of the newest event in the host's log (0 when empty).
    public func lastEventPosition() throws -> Int64 {
        try events.log.lastPosition()
    }

    /// Each subscription's delivery state: delivered, behind, failing and why.
    public func eventDeliveries() throws -> [EventBus.Status] {
        try events.status()
    }

    /// Publishes an event as `publisher` (tests stand in for a plugin that is not there).
    @discardableResult
    public func publishEvent(_ publisher: String, name: String, payload: JSONValue) throws -> PublishedEvent? {
        try events.publish(publisher, name: name, payload: payload)
    }

    /// Calls `observer` after each event is stored (the SSE stream wakes its readers).
    public func onEventPublished(_ observer: @escaping @Sendable () -> Void) {
        events.onPublished(observer)
    }
}
