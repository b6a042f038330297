import Foundation

/// Events a plugin publishes for other plugins, granted as the `events` capability.
///
/// A plugin declares in its manifest the events it emits (`emits: ["exam-scheduled"]`) and those
/// of other plugins it consumes (`consumes: ["cz.stag/exam-scheduled"]`). The host keeps every
/// published event in a persisted outbox and hands it to each subscriber at least once, in publish
/// order per publisher, even if the subscriber was not loaded at that moment. A subscriber that
/// throws affects neither the publisher nor other subscribers: the host retries it with backoff and
/// shows the failure (`tessera events list`).
///
/// To publish an event together with the records it describes, so that neither exists without
/// the other, emit it in the write batch with ``WriteBatch/emit(_:_:)``.
public protocol PluginEvents: Sendable {
    /// Publishes an event declared in the manifest's `emits`. It is durable once this returns.
    ///
    /// - Throws: ``PluginError`` with code `forbidden` for an event the manifest does not declare.
    func publish(_ name: String, _ payload: JSONValue) async throws
}

extension CapabilityKey where Value == any PluginEvents {
    /// Publishing events to other plugins.
    public static var events: CapabilityKey<any PluginEvents> { .init("events") }
}

/// An event as a subscriber receives it.
public struct PublishedEvent: Sendable, Hashable {
    /// The publishing plugin's id.
    public var publisher: String
    /// The event's name, as the publisher's manifest declares it.
    public var name: String
    /// The data published with it.
    public var payload: JSONValue
    /// Its position in the publisher's stream: increasing, in publish order.
    public var sequence: Int64
    /// When it was published, on the host's clock.
    public var publishedAt: Date

    /// `publisher/name`, as a manifest's `consumes` spells it.
    public var qualifiedName: String { "\(publisher)/\(name)" }

    /// Creates an event.
    public init(publisher: String, name: String, payload: JSONValue, sequence: Int64, publishedAt: Date) {
        self.publisher = publisher
        self.name = name
        self.payload = payload
        self.sequence = sequence
        self.publishedAt = publishedAt
    }
}

/// An event emitted in a write batch, published when the batch commits.
public struct EmittedEvent: Sendable, Hashable {
    /// The event's name, declared in the manifest's `emits`.
    public var name: String
    /// Its data.
    public var payload: JSONValue

    /// Creates an emitted event.
    public init(name: String, payload: JSONValue) {
        self.name = name
        self.payload = payload
    }
}

/// Handles an event of another plugin.
public typealias EventHandler = @Sendable (PublishedEvent) async throws -> Void
