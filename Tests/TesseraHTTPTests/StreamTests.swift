import TesseraTestFixtures
import Foundation
import Testing
@testable import TesseraHTTP
import TesseraSDK

/// `GET /v1/stream` over real HTTP: notifications and events as Server-Sent Events, resuming from
/// `Last-Event-ID`, keep-alive comments, and a server that stops with streams open.
@Suite struct StreamTests {
    /// Schedules a notification due now and moves the virtual clock, which delivers it.
    func deliverNotification(_ server: TestServer, title: String) async throws {
        #expect(try await server.call("notify", #"{"title": "\#(title)"}"#).status == 200)
        let advanced = try await server.request("POST", "/v1/clock/advance", json: #"{"by": "1s"}"#)
        #expect(advanced.status == 200, "\(advanced.text)")
    }

    func open(_ server: TestServer, token: String? = nil, lastEventID: String? = nil) async throws -> SSEConnection {
        var headers = [("Authorization", "Bearer \(token ?? server.adminToken)")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        return try await SSEConnection.open(port: server.port, headers: headers)
    }

    @Test(.hangWatchdog) func newNotificationsArriveLiveWithTheirPositionAsID() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let stream = try await open(server)
            #expect(stream.status == 200)
            #expect(stream.headers["content-type"] == "text/event-stream; charset=utf-8")
            #expect(stream.headers["cache-control"] == "no-store")
            try await deliverNotification(server, title: "first")
            let message = try #require(try await stream.nextMessage())
            #expect(message.event == "notification")
            #expect(message.id == "n-1.e-0")
            #expect(message.json?["title"] == "first")
            #expect(message.json?["plugin"] == .string(ProbePlugin.id))
            stream.close()
        }
    }

    @Test(.hangWatchdog) func eventsGoToAdminTokensOnly() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let admin = try await open(server)
            let user = try await open(server, token: server.userToken)
            #expect(try await server.call("publish", #"{"n": 1}"#).status == 200)
            try await deliverNotification(server, title: "after-the-event")
            let event = try #require(try await admin.nextMessage())
            #expect(event.event == "event")
            #expect(event.id == "n-0.e-1")
            #expect(event.json?["publisher"] == .string(ProbePlugin.id))
            #expect(event.json?["name"] == "pinged")
            #expect(event.json?["sequence"] == 1)
            #expect(event.json?["payload"] == ["n": 1])
            // The user's stream skips the event: its first message is the notification.
            let first = try #require(try await user.nextMessage())
            #expect(first.event == "notification")
            #expect(first.id == "n-1.e-0")
            admin.close()
            user.close()
        }
    }

    @Test(.hangWatchdog) func lastEventIDResumesWithWhatWasMissedThenLive() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let stream = try await open(server)
            try await deliverNotification(server, title: "one")
            let one = try #require(try await stream.nextMessage())
            #expect(one.id == "n-1.e-0")
            stream.close()
            // Missed while disconnected: a notification and an event.
            try await deliverNotification(server, title: "two")
            #expect(try await server.call("publish", #"{"n": 2}"#).status == 200)
            let resumed = try await open(server, lastEventID: try #require(one.id))
            let two = try #require(try await resumed.nextMessage())
            #expect(two.event == "notification")
            #expect(two.json?["title"] == "two")
            #expect(two.id == "n-2.e-0")
            let event = try #require(try await resumed.nextMessage())
            #expect(event.event == "event")
            #expect(event.id == "n-2.e-1")
            try await deliverNotification(server, title: "three")  // then live
            #expect(try await resumed.nextMessage()?.json?["title"] == "three")
            resumed.close()

            // One part alone: notifications after 1, events from now (none sent).
            let partial = try await open(server, lastEventID: "n-1")
            #expect(try await partial.nextMessage()?.json?["title"] == "two")
            #expect(try await partial.nextMessage()?.json?["title"] == "three")
            partial.close()
        }
    }

    @Test(.hangWatchdog) func aStreamWithoutLastEventIDStartsFromNow() async throws {
        try await TestServer.start(transport: .socket).use { server in
            try await deliverNotification(server, title: "old")
            let stream = try await open(server)
            try await deliverNotification(server, title: "new")
            #expect(try await stream.nextMessage()?.json?["title"] == "new")
            stream.close()
        }
    }

    @Test(.hangWatchdog) func anIdleStreamSendsKeepAliveComments() async throws {
        try await TestServer.start(keepAlive: .milliseconds(200), transport: .socket).use { server in
            let stream = try await open(server)
            var comment: String?
            while comment == nil, let message = try await stream.next() { comment = message.comment }
            #expect(comment == "keep-alive")
            stream.close()
        }
    }

    @Test(.hangWatchdog) func refusalsAreJSONErrors() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let anonymous = try await SSEConnection.open(port: server.port, headers: [])
            #expect(anonymous.status == 401)
            anonymous.close()
            // Exactly what the document's pattern refuses: the events' part second, at most 18 digits.
            for bad in ["x", "n-", "n-1.n-2", "e-1.x-2", "n--3", "e-40.n-12", "n-+5", "n-1234567890123456789", ".e-4", "n-1e-2"] {
                let refused = try await open(server, lastEventID: bad)
                #expect(refused.status == 400, "\(bad)")
                #expect(String(decoding: refused.errorBody, as: UTF8.self).contains(#""field":"Last-Event-ID""#), "\(bad)")
                refused.close()
            }
        }
    }

    @Test(.hangWatchdog) func stoppingTheServerEndsOpenStreams() async throws {
        let server = try await TestServer.start(transport: .socket)
        let stream = try await open(server)
        _ = try await stream.next()  // the preamble: the stream is open
        await server.stop()  // returns: the stream does not hold the graceful stop
        while try await stream.next() != nil {}  // and the client sees the end
        stream.close()
    }

    func parse(_ text: String) -> [Int64?]? {
        StreamPosition.parse(text).map { [$0.notification, $0.event] }
    }

    @Test func positionsParseAndPrint() {
        #expect(StreamPosition(notification: 3, event: 9).id == "n-3.e-9")
        #expect(parse("n-12.e-40") == [12, 40])
        #expect(parse("n-12") == [12, nil])
        #expect(parse("e-40") == [nil, 40])
        #expect(parse("e-40.n-12") == nil)  // not the order this stream sends, nor the pattern's
        #expect(parse("n-1.n-2") == nil)
        #expect(parse("") == [nil, nil])  // as if none was sent
        #expect(parse("n-999999999999999999") == [999_999_999_999_999_999, nil])
    }

    /// An empty `Last-Event-ID` (which the document's pattern allows) starts from now, like none.
    @Test(.hangWatchdog) func anEmptyLastEventIDStartsFromNow() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let stream = try await open(server, lastEventID: "")
            #expect(stream.status == 200)
            stream.close()
        }
    }
}
