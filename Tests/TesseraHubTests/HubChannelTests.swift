import Foundation
import Testing
import TesseraHub
import TesseraSDK
import TesseraHubFixtures
import TesseraTestFixtures

/// A person's delivery channels at the hub (docs/hub.md, "Delivery channels"): the hub itself
/// sends the space notifications filed for a member to their webhook (a real HTTP server on
/// loopback, ``LoopbackHTTPServer``) or e-mail address (a real SMTP server, ``SMTPTestServer``),
/// with none of their devices online, on the hub's settable clock.
@Suite("Delivery channels at the hub", .hangWatchdog)
struct HubChannelTests {
    static let space = HubNotificationRelayTests.space

    /// ada owns the space, bob is a viewer in it; neither has a device that fetches anything.
    static func twoMembers(_ hub: HubTestServer) async throws -> (ada: String, bob: String) {
        for name in ["ada", "bob"] { try await hub.addPerson(name) }
        let ada = try await hub.login("ada", device: "phone"), bob = try await hub.login("bob", device: "phone")
        #expect(try await hub.request("PUT", "/v1/hub/spaces/\(space)?plugin=test.spaces", token: ada, json: #"{"name":"Trip"}"#).status == 201)
        try await hub.share(space, owner: ada, with: bob, role: "viewer")
        return (ada, bob)
    }

    static func addWebhook(_ hub: HubTestServer, token: String, url: String, plugin: String? = nil) async throws -> (id: String, secret: String) {
        let plugin = plugin.map { #", "plugin": "\#($0)""# } ?? ""
        let added = try await hub.request("POST", "/v1/hub/channels", token: token, json: #"{"kind": "webhook", "url": "\#(url)"\#(plugin)}"#)
        guard added.status == 201, let id = added.json?["id"]?.stringValue, let secret = added.json?["secret"]?.stringValue else {
            throw Failure("adding a webhook: \(added.status) \(added.text)")
        }
        return (id, secret)
    }

    /// HMAC-SHA256 of `message` under `secret`, in hex, by Python's `hmac` (not the hub's code).
    static func pythonHMAC(secret: String, message: String) async throws -> String {
        let result = try await runDetached("/usr/bin/python3", [
            "-c", "import hmac, hashlib, sys; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())", secret,
        ], input: message)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a webhook receives the notification once, signed, although the relay came twice and no device of the person is online",
          arguments: HubBackend.available)
    func webhookOnceSigned(backend: HubBackend) async throws {
        let receiver = try LoopbackHTTPServer(.status(200))
        defer { receiver.close() }
        try await HubTestServer.start(backend).use { hub in
            let (ada, bob) = try await Self.twoMembers(hub)
            let channel = try await Self.addWebhook(hub, token: bob, url: receiver.url("/hooks/bob?token=abc"))
            #expect(channel.secret.hasPrefix("whsec_") && channel.secret.count == 70)
            let listed = try await hub.request("GET", "/v1/hub/channels", token: bob)
            #expect(listed.json?["channels"]?.arrayValue?.map { $0["id"]?.stringValue } == [channel.id])
            #expect(listed.json?["channels"]?.arrayValue?.first?["secret"] == nil && !listed.text.contains(channel.secret))

            #expect(try await HubNotificationRelayTests.relay(hub, token: ada, key: "k1").status == 201)
            #expect(try await HubNotificationRelayTests.relay(hub, token: ada, key: "k1").status == 200)  // a repeated relay
            let sender = HubChannelSender(store: hub.hub)
            var outcome = await sender.deliverDue()
            #expect(outcome.sent == 1 && outcome.retried == 0 && outcome.dropped == 0)
            #expect(try await HubNotificationRelayTests.relay(hub, token: ada, key: "k1").status == 200)
            outcome = await sender.deliverDue()
            #expect(outcome == HubChannelSender.Outcome())

            #expect(receiver.requests.count == 1)
            let request = try #require(receiver.requests.first)
            #expect(request.method == "POST" && request.path == "/hooks/bob?token=abc")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.headers["idempotency-key"] == "k1.\(channel.id)")
            let body = try JSONValue(parsing: request.body)
            #expect(body["id"]?.stringValue == "k1.\(channel.id)")
            #expect(body["title"]?.stringValue == "T k1" && body["body"]?.stringValue == "B")
            #expect(body["payload"] == ["screen": "visit"])
            #expect(body["plugin"]?.stringValue == "test.spaces" && body["space"]?.stringValue == Self.space)
            #expect(body["dueAt"]?.stringValue == "2026-03-02T08:00:00.000Z" && body["dueAtMillis"]?.integerValue == 1_772_438_400_000)
            #expect(body["sender"]?["name"]?.stringValue == "ada")
            #expect(body["priority"] == "normal" && body["message"] == nil, "a relay without them (SDK 1.7) reads as normal, with no message")
            // Tessera-Signature: t=<hub's clock in seconds>,v1=HMAC-SHA256(secret, "<t>.<body>"), checked by Python's hmac.
            let signature = try #require(request.headers["tessera-signature"])
            let seconds = hub.clock.millis / 1000
            #expect(signature.hasPrefix("t=\(seconds),v1="))
            let expected = try await Self.pythonHMAC(secret: channel.secret, message: "\(seconds).\(request.body)")
            #expect(expected.count == 64 && signature == "t=\(seconds),v1=\(expected)")
            #expect(try await hub.hub.channels.channelDeliveries().map(\.state) == ["sent"])
        }
    }

    @Test("a 500 is tried again after 2 s on the hub's clock (not after 1 s), then delivered with the same key; a 404 is dropped, never retried")
    func retriedThenDropped() async throws {
        let flaky = try LoopbackHTTPServer(.sequence([500]))
        let gone = try LoopbackHTTPServer(.status(404))
        defer { flaky.close(); gone.close() }
        try await HubTestServer.start().use { hub in
            let (ada, bob) = try await Self.twoMembers(hub)
            let retried = try await Self.addWebhook(hub, token: bob, url: flaky.url())
            _ = try await Self.addWebhook(hub, token: bob, url: gone.url())
            #expect(try await HubNotificationRelayTests.relay(hub, token: ada, key: "k1").status == 201)
            let sender = HubChannelSender(store: hub.hub)
            var outcome = await sender.deliverDue()
            #expect(outcome.retried == 1 && outcome.dropped == 1 && outcome.sent == 0)
            let pending = try #require(try await hub.hub.channels.channelDeliveries().first { $0.channel == retried.id })
            #expect(pending.state == "pending" && pending.attempts == 1 && pending.lastError == "HTTP 500")
            #expect(pending.nextAttemptMillis == hub.clock.millis + 2000)
            hub.clock.advance(1)
            #expect(await sender.deliverDue() == HubChannelSender.Outcome())  // not due yet
            hub.clock.advance(1)
            outcome = await sender.deliverDue()
            #expect(outcome.sent == 1 && outcome.retried == 0)
            #expect(flaky.requests.count == 2 && gone.requests.count == 1)
            #expect(Set(flaky.requests.map { $0.headers["idempotency-key"] }) == ["k1.\(retried.id)"])
            hub.clock.advance(7200)
            #expect(await sender.deliverDue() == HubChannelSender.Outcome())
            #expect(gone.requests.count == 1)
            #expect(try await hub.hub.channels.channelDeliveries().map(\.state).sorted() == ["dropped", "sent"])
            #expect(sender.counters.sent == 1 && sender.counters.retried == 1 && sender.counters.dropped == 1)
        }
    }

    @Test("a removed channel gets nothing, not even what was queued for it; a channel for another plugin gets nothing; nobody lists or removes another's channels",
          arguments: HubBackend.available)
    func removedAndPrivate(backend: HubBackend) async throws {
        let receiver = try LoopbackHTTPServer(.status(200))
        defer { receiver.close() }
        try await HubTestServer.start(backend).use { hub in
            let (ada, bob) = try await Self.twoMembers(hub)
            let removed = try await Self.addWebhook(hub, token: bob, url: receiver.url("/removed"))
            _ = try await Self.addWebhook(hub, token: bob, url: receiver.url("/other-plugin"), plugin: "test.other")
            // ada neither sees nor removes bob's channels.
            #expect(try await hub.request("GET", "/v1/hub/channels", token: ada).json?["channels"] == [])
            let foreign = try await hub.request("DELETE", "/v1/hub/channels/\(removed.id)", token: ada)
            #expect(foreign.status == 404 && foreign.errorCode == "channel_not_found")
            #expect(try await hub.request("GET", "/v1/hub/channels", token: bob).json?["channels"]?.arrayValue?.count == 2)

            #expect(try await HubNotificationRelayTests.relay(hub, token: ada, key: "k1").status == 201)
            #expect(try await hub.request("DELETE", "/v1/hub/channels/\(removed.id)", token: bob).status == 204)
            #expect(try await hub.request("DELETE", "/v1/hub/channels/\(removed.id)", token: bob).status == 404)
            #expect(await HubChannelSender(store: hub.hub).deliverDue() == HubChannelSender.Outcome())
            #expect(receiver.requests.isEmpty)
            #expect(try await hub.hub.channels.channelDeliveries().isEmpty)
        }
    }

    @Test("a channel is refused by name: a kind, a URL that is not https (or http to this machine), a plugin id, an e-mail without an address or a mail sink")
    func refusals() async throws {
        try await HubTestServer.start(mailSink: false).use { hub in
            try await hub.addPerson("bob")
            let bob = try await hub.login("bob", device: "phone")
            func refusal(_ json: String) async throws -> (Int, String?, String?) {
                let response = try await hub.request("POST", "/v1/hub/channels", token: bob, json: json)
                return (response.status, response.errorCode, response.json?["error"]?["field"]?.stringValue)
            }
            #expect(try await refusal(#"{"kind": "sms"}"#) == (400, "invalid_input", "$.kind"))
            #expect(try await refusal(#"{"kind": "webhook"}"#) == (400, "invalid_input", "$.url"))
            #expect(try await refusal(#"{"kind": "webhook", "url": "http://example.org/hook"}"#) == (400, "invalid_url", "$.url"))
            #expect(try await refusal(#"{"kind": "webhook", "url": "ftp://example.org/hook"}"#) == (400, "invalid_url", "$.url"))
            #expect(try await refusal(#"{"kind": "webhook", "url": "https://me:pw@example.org/hook"}"#) == (400, "invalid_url", "$.url"))
            #expect(try await refusal(#"{"kind": "webhook", "url": "hooks/bob"}"#) == (400, "invalid_url", "$.url"))
            #expect(try await refusal(#"{"kind": "webhook", "url": "https://example.org/h", "plugin": "Bad Id"}"#).1 == "invalid_plugin")
            #expect(try await refusal(#"{"kind": "email"}"#) == (409, "no_mail_sink", nil))
            #expect(try await refusal(#"{"url": "https://example.org/h"}"#) == (400, "invalid_input", "$.kind"))
            #expect(try await hub.request("GET", "/v1/hub/channels", token: bob).json?["channels"] == [])
            #expect(try await hub.request("GET", "/v1/hub/channels").status == 401)
            // https anywhere and http to this machine are taken; the same one twice is not.
            #expect(try await refusal(#"{"kind": "webhook", "url": "https://example.org/h"}"#).0 == 201)
            #expect(try await refusal(#"{"kind": "webhook", "url": "http://[::1]:8080/h"}"#).0 == 201)
            #expect(try await refusal(#"{"kind": "webhook", "url": "https://example.org/h"}"#) == (409, "channel_exists", nil))
        }
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("cy")  // made by the operator: no e-mail address
            let cy = try await hub.login("cy", device: "phone")
            let response = try await hub.request("POST", "/v1/hub/channels", token: cy, json: #"{"kind": "email"}"#)
            #expect(response.status == 409 && response.errorCode == "no_address")
        }
    }

    static func code(in body: String) -> String? {
        body.components(separatedBy: .whitespacesAndNewlines).first { $0.count == 7 && $0.allSatisfy { $0.isNumber } }
    }

    @Test("e-mail channels: the account's address at once, another address once the code mailed there comes back; title, body and the payload's link and positions through a real SMTP server",
          .needs("debian-python:aiosmtpd"), arguments: HubBackend.available)
    func email(backend: HubBackend) async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let ada = try await hub.login("ada", device: "phone")
            let registered = try await hub.request("POST", "/v1/hub/register", json: """
                {"firstName": "Bob", "surname": "Guardian", "email": "Bob@Example.org", "password": "correct horse battery", "acceptTerms": true, "device": "laptop"}
                """)
            let bob = try #require(registered.json?["token"]?.stringValue)
            #expect(try await hub.request("PUT", "/v1/hub/spaces/\(Self.space)?plugin=test.spaces", token: ada, json: #"{"name":"Trip"}"#).status == 201)
            try await hub.share(Self.space, owner: ada, with: bob, role: "viewer")
            let added = try await hub.request("POST", "/v1/hub/channels", token: bob, json: #"{"kind": "email"}"#)
            #expect(added.status == 201 && added.json?["address"] == "bob@example.org" && added.json?["confirmed"] == true && added.json?["secret"] == nil)
            let other = try await hub.request("POST", "/v1/hub/channels", token: bob, json: #"{"kind": "email", "address": " Eve@Example.org"}"#)
            #expect(other.status == 201 && other.json?["address"] == "eve@example.org" && other.json?["confirmed"] == false)
            let eve = try #require(other.json?["id"]?.stringValue)
            let bad = try await hub.request("POST", "/v1/hub/channels", token: bob, json: #"{"kind": "email", "address": "eve at example"}"#)
            #expect(bad.status == 400 && bad.errorCode == "invalid_email" && bad.json?["error"]?["field"] == "$.address")

            // The first SOS is critical (SDK 1.8): the subject says so first.
            func relay(_ key: String) async throws -> Int {
                try await hub.request("POST", "/v1/hub/notifications", token: ada, json: """
                    {"key": "\(key)", "notificationKey": "sos", "plugin": "test.spaces", "space": "\(Self.space)", "excludingSender": true,
                     "priority": "\(key == "sos-1" ? "critical" : "normal")",
                     "title": "SOS from ada (\(key))", "body": "ada pressed SOS at 14:05.", "dueAtMillis": 1772438400000, "late": false,
                     "payload": {"link": "https://hub.example.org/live/abc", "positions": "50.08804,14.42076 at 14:04", "battery": 0.41}}
                    """).status
            }
            let mailer = HubMailer(store: hub.hub, transport: SMTPTransport(host: "127.0.0.1", port: smtp.port, from: "hub@tessera.test"))
            let sender = HubChannelSender(store: hub.hub)
            #expect(try await relay("sos-1") == 201)
            #expect(await sender.deliverDue().mailed == 1)  // eve's address is not confirmed: only bob's account
            #expect(await mailer.deliverDue() == (2, 0))   // eve's code, bob's alert
            var messages = try await smtp.waitForMessages(2)
            let codeMail = try #require(messages.first { $0.to == ["eve@example.org"] })
            #expect(!codeMail.subject.contains { $0.isNumber })  // the outbox keeps subjects: the code is in the body only
            let code = try #require(Self.code(in: codeMail.body))
            let alert = try #require(messages.first { $0.to == ["bob@example.org"] })
            #expect(alert.subject == "[Urgent] SOS from ada (sos-1)")
            #expect(alert.body.contains("due 08:00 UTC on 2 March 2026."), "\(alert.body)")
            #expect(alert.body.hasPrefix("ada pressed SOS at 14:05.\n\n"))
            #expect(alert.body.contains("link: https://hub.example.org/live/abc\n"))
            #expect(alert.body.contains("positions: 50.08804,14.42076 at 14:04\n") && alert.body.contains("battery: 0.41\n"))

            let wrong = try await hub.request("POST", "/v1/hub/channels/\(eve)/confirm", token: bob, json: #"{"code": "\#(code == "0000000" ? "0000001" : "0000000")"}"#)
            #expect(wrong.status == 400 && wrong.errorCode == "invalid_code")
            #expect(try await hub.request("POST", "/v1/hub/channels/\(eve)/confirm", token: ada, json: #"{"code": "\#(code)"}"#).status == 404)
            let confirmed = try await hub.request("POST", "/v1/hub/channels/\(eve)/confirm", token: bob, json: #"{"code": "\#(code)"}"#)
            #expect(confirmed.status == 200 && confirmed.json?["confirmed"] == true)
            #expect(try await relay("sos-2") == 201)
            #expect(await sender.deliverDue().mailed == 2)
            #expect(await mailer.deliverDue() == (2, 0))
            messages = try await smtp.waitForMessages(4)
            #expect(messages.filter { $0.subject == "SOS from ada (sos-2)" }.map(\.to).sorted { $0[0] < $1[0] } == [["bob@example.org"], ["eve@example.org"]])
            #expect(messages.filter { $0.subject == "[Urgent] SOS from ada (sos-1)" }.count == 1)

            // A code tried five times wrong is void.
            let zed = try #require(try await hub.request("POST", "/v1/hub/channels", token: bob, json: #"{"kind": "email", "address": "zed@example.org"}"#)
                .json?["id"]?.stringValue)
            for _ in 0..<HubChannelStore.maxChannelCodeAttempts {
                #expect(try await hub.request("POST", "/v1/hub/channels/\(zed)/confirm", token: bob, json: #"{"code": "x"}"#).errorCode == "invalid_code")
            }
            let void = try await hub.request("POST", "/v1/hub/channels/\(zed)/confirm", token: bob, json: #"{"code": "x"}"#)
            #expect(void.status == 410 && void.errorCode == "code_expired")
        }
    }
}
