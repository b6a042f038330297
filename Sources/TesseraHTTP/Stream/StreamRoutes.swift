import Foundation
import HTTPTypes
import Hummingbird
import TesseraEvents
import TesseraNotifications
import TesseraRuntime
import TesseraSDK
import TesseraSystem

/// `GET /v1/stream`: Server-Sent Events of new notifications (`event: notification`) and, for an
/// admin token, of events between plugins (`event: event`).
///
/// Each message's `id` is the stream position after it (``StreamPosition``). A client that sends
/// `Last-Event-ID` gets what it missed since that position, then the live messages; without one the
/// stream starts from now. A comment line every ``keepAlive`` keeps the connection from looking
/// idle, and at the same time the stream looks for entries another process may have written.
struct StreamRoutes: Sendable {
    let host: any HostAPI
    let hub: StreamHub
    let keepAlive: Duration

    /// The most messages of one kind read from the stores at once.
    static let batch = 100

    func stream(_ request: Request, context: APIRequestContext) throws -> Response {
        let session = StreamSession(host: host, position: try startingPosition(request), includeEvents: context.principal?.role == .admin)
        let (hub, keepAlive) = (self.hub, self.keepAlive)
        let headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // Written after the responder returned, on the connection's task: back to the shared pool,
            // as the handler was (the stream reads the stores).
            try await onSharedPool { try await Self.run(session, writer: &writer, hub: hub, keepAlive: keepAlive) }
        })
    }

    /// Writes the stream until the hub closes (the server stops) or the client goes away: the
    /// backlog at once, then what each wake-up finds, and a keep-alive comment when a whole
    /// interval passed without a message.
    static func run(_ session: StreamSession, writer: inout any ResponseBodyWriter, hub: StreamHub, keepAlive: Duration) async throws {
        var session = session
        let (token, wakeups) = hub.join()
        // The keep-alive timer is a wake-up like any other: the stream then also looks for
        // entries another process wrote.
        let ticker = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: keepAlive)
                hub.wake(token)
            }
        }
        defer {
            ticker.cancel()
            hub.leave(token)
        }
        do {
            try await writer.write(ByteBuffer(string: ServerSentEvent.preamble))
            var lastWrite = ContinuousClock.now
            for await _ in wakeups {
                let messages = try session.pending()
                if !messages.isEmpty {
                    try await writer.write(ByteBuffer(string: messages.map(\.text).joined()))
                    lastWrite = .now
                } else if ContinuousClock.now - lastWrite >= keepAlive * 0.9 {
                    try await writer.write(ByteBuffer(string: ServerSentEvent.keepAlive))
                    lastWrite = .now
                }
            }
        } catch {
            return  // the client went away (or a store failed): the connection is closed
        }
        try await writer.finish(nil)
    }

    /// The position in `Last-Event-ID`; the newest entries for a part it does not give.
    func startingPosition(_ request: Request) throws -> StreamPosition {
        var resume: (notification: Int64?, event: Int64?) = (nil, nil)
        if let header = request.headers[.lastEventID] {
            guard let parsed = StreamPosition.parse(header) else {
                throw APIError(.badRequest, code: "invalid_input",
                               "Last-Event-ID: expected an id this stream sent, such as n-12.e-40 (or n-12, or e-40), found '\(header.prefix(60))'",
                               field: "Last-Event-ID")
            }
            resume = parsed
        }
        let notification = try resume.notification ?? host.inbox(limit: 1).first?.id ?? 0
        let event = try resume.event ?? host.lastEventPosition()
        return StreamPosition(notification: notification, event: event)
    }
}

/// One stream's reading side: what is new after its position, in order, and the position moved on.
struct StreamSession {
    let host: any HostAPI
    var position: StreamPosition
    let includeEvents: Bool

    /// Every message after the position, notifications first; moves the position past them.
    mutating func pending() throws -> [ServerSentEvent] {
        var messages: [ServerSentEvent] = []
        while true {
            let entries = try host.inbox(after: position.notification, limit: StreamRoutes.batch)
            for entry in entries {
                position.notification = entry.id
                messages.append(ServerSentEvent(id: position.id, event: "notification", data: entry.json))
            }
            let events = includeEvents ? try host.publishedEvents(afterPosition: position.event, limit: StreamRoutes.batch) : []
            for (number, event) in events {
                position.event = number
                messages.append(ServerSentEvent(id: position.id, event: "event", data: Self.json(event, position: number)))
            }
            if entries.count < StreamRoutes.batch && events.count < StreamRoutes.batch { return messages }
        }
    }

    static func json(_ event: PublishedEvent, position: Int64) -> JSONValue {
        ["position": .integer(position), "publisher": .string(event.publisher), "name": .string(event.name),
         "sequence": .integer(event.sequence), "payload": event.payload, "publishedAt": .string(event.publishedAt.formatted(.iso8601))]
    }
}

extension HTTPField.Name {
    /// The SSE reconnection header (HTML standard, "Server-sent events").
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
