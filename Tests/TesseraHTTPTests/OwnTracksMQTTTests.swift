import Foundation
import NIOCore
import Synchronization
import Testing
@testable import TesseraHTTP
import TesseraSDK
import TesseraTestFixtures

/// OwnTracks over MQTT (docs/location.md, "OwnTracks over MQTT"): the packets of the host's
/// subscribe-only MQTT 3.1.1 client, byte for byte; then the real thing — Debian's `mosquitto`
/// with a user and password, OwnTracks messages published as the app publishes them
/// (`mosquitto_pub`, QoS 1, retained), `tessera serve` subscribed through its deployment, and the
/// positions on the traveller's trip in safe travel. Messages published while the host is down
/// arrive when it is back (its session is kept at the broker).
@Suite struct MQTTPacketTests {
    static func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }

    @Test func connectCarriesTheProtocolTheKeptSessionAndTheCredentials() {
        let packet = Self.bytes(MQTTPacket.connect(clientID: "t", username: "u", password: "p", keepAlive: 60, cleanSession: false))
        // CONNECT, 19 bytes after its length: "MQTT", level 4, flags user+password (no clean session), keep-alive 60, then id, user, password.
        #expect(packet == [0x10, 19, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0xC0, 0, 60, 0, 1, 0x74, 0, 1, 0x75, 0, 1, 0x70])
        let anonymous = Self.bytes(MQTTPacket.connect(clientID: "t", username: nil, password: nil, keepAlive: 30, cleanSession: true))
        #expect(anonymous[9] == 0x02)
    }

    @Test func subscribeAskForQoS1AndAPubackNamesItsPacket() {
        #expect(Self.bytes(MQTTPacket.subscribe(packetID: 1, filter: "owntracks/#", qos: 1))
                == [0x82, 16, 0, 1, 0, 11] + Array("owntracks/#".utf8) + [1])
        #expect(Self.bytes(MQTTPacket.puback(packetID: 0x1234)) == [0x40, 2, 0x12, 0x34])
    }

    @Test func aPublishIsReadOnlyOnceAllOfItHasArrivedAndTheRemainingLengthSpansBytes() throws {
        let payload = [UInt8](repeating: 0x61, count: 200)  // 2 + 19 + 2 + 200 = 223 bytes: two length bytes
        var whole = ByteBuffer(bytes: [0x33, 0xDF, 0x01, 0, 19] + Array("owntracks/ada/phone".utf8) + [0, 7] + payload)
        var half = whole.getSlice(at: 0, length: 100)!
        #expect(try MQTTPacket.read(from: &half) == nil)
        #expect(half.readableBytes == 100)  // nothing consumed
        let packet = try MQTTPacket.read(from: &whole)
        #expect(packet == .publish(topic: "owntracks/ada/phone", payload: payload, qos: 1, packetID: 7, retain: true))
        #expect(whole.readableBytes == 0)
    }

    @Test func aBrokenPacketIsRefusedAndConnackRefusalsAreNamed() throws {
        var tooLong = ByteBuffer(bytes: [0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(throws: MQTTPacket.Malformed.self) { _ = try MQTTPacket.read(from: &tooLong) }
        var refused = ByteBuffer(bytes: [0x20, 2, 0, 4])
        #expect(try MQTTPacket.read(from: &refused) == .connack(sessionPresent: false, returnCode: 4))
        #expect(MQTTPacket.refusal(4) == "the broker refused the user name or password")
        #expect(OwnTracksMQTT.deviceID(topic: "owntracks/jane/phone") == "jane/phone")
    }
}

@Suite(.serialized, .needs("mosquitto"), .needs("mosquitto_pub")) struct OwnTracksMQTTTests {
    /// An OwnTracks location message `seconds` into the trip (from 08:00 UTC, the clock's start),
    /// 111 m further north each minute.
    static func location(_ seconds: Int) -> String {
        #"{"_type": "location", "lat": \#(50.07 + 0.001 * Double(seconds) / 60), "lon": 14.42, "tst": \#(1_772_438_400 + seconds), "acc": 8, "batt": 80, "tid": "ph"}"#
    }

    /// The admin token the first start printed (a restart prints none).
    static let token = Mutex("")

    static func call(_ serve: ServeProcess, _ operation: String, _ body: String) async throws -> JSONValue {
        if let printed = serve.adminToken { token.withLock { $0 = printed } }
        let answer = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.safetravel/ops/\(operation)",
                                                     headers: [("Authorization", "Bearer \(token.withLock { $0 })"), ("Content-Type", "application/json")],
                                                     body: Array(body.utf8))
        return try #require(answer.json, "\(answer.text)")
    }

    /// The trip's positions once there are `count` (MQTT delivers asynchronously: asked again
    /// every 100 ms, for up to 20 s of the machine's time — a wait for another process, not a
    /// clock the test moves).
    static func positions(_ serve: ServeProcess, trip: String, count: Int) async throws -> [JSONValue] {
        var found: [JSONValue] = []
        for _ in 0..<200 {
            found = (try await call(serve, "trip-activities", #"{"tripId": "\#(trip)"}"#)["activities"]?.arrayValue ?? []).filter { $0["lat"] != .null && $0["lat"] != nil }
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        return found
    }

    @Test(.hangWatchdog) func positionsPublishedToTheBrokerReachTheTripAlsoThoseSentWhileTheHostWasDown() async throws {
        let broker = try await MosquittoBroker()
        try await withCleanup({ await broker.stop() }) {
            let ws = FixtureWorkspace("owntracks-mqtt")
            try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
            Fixtures.write(broker.password + "\n", to: ws.root + "/mqtt-password")
            ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel", "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
                                          "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                     "notifications": ["spaces": true], "sync": [:] as [String: Any], "files": [:] as [String: Any]]]],
                               extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                                     "location": ["mqtt": ["url": "mqtt://127.0.0.1:\(broker.port)", "username": broker.user,
                                                                           "passwordFile": ws.root + "/mqtt-password"]]]])
            var serve = try await ServeProcess.start(ws)
            _ = try await Self.call(serve, "account-setup", #"{"username": "ada", "pin": "4826"}"#)
            let trip = try #require(try await Self.call(serve, "trip-start", #"{"destination": {"name": "Home", "lat": 50.088, "lon": 14.42}}"#)["id"]?.stringValue)
            // The first position is there once the host has subscribed (the broker keeps the last one,
            // retained, for a subscriber that comes after it); the next ones as they are published.
            try await broker.publish(Self.location(0), to: "owntracks/ada/phone")
            #expect(try await Self.positions(serve, trip: trip, count: 1).count == 1)
            // Safe travel takes no fix from more than a minute ahead of the host's clock: the clock walks with the phone.
            for minute in 1..<3 {
                _ = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/clock/advance",
                                                    headers: [("Authorization", "Bearer \(serve.adminToken ?? "")"), ("Content-Type", "application/json")],
                                                    body: Array(#"{"by": "1m"}"#.utf8))
                try await broker.publish(Self.location(minute * 60), to: "owntracks/ada/phone")
            }
            let first = try await Self.positions(serve, trip: trip, count: 3)
            #expect(first.count == 3, "\(first)")
            #expect(first.map { $0["lat"] } == [50.07, 50.071, 50.072])

            // The host stops (its clock at 08:04); the phone goes on publishing; the host comes back and
            // gets those too, in order.
            _ = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/clock/advance",
                                                headers: [("Authorization", "Bearer \(serve.adminToken ?? "")"), ("Content-Type", "application/json")],
                                                body: Array(#"{"by": "2m"}"#.utf8))
            _ = try await serve.terminate()
            for minute in [3, 4] { try await broker.publish(Self.location(minute * 60), to: "owntracks/ada/phone") }
            serve = try await ServeProcess.start(ws)
            defer { serve.process.terminate() }
            let all = try await Self.positions(serve, trip: trip, count: 5)
            #expect(all.count == 5, "\(all)")
            #expect(all.map { $0["created_at"] } == (0..<5).map { .string("2026-03-02T08:0\($0):00.000Z") })
            let (_, rest) = try await serve.terminate()
            #expect(!(serve.output + rest).contains(broker.password))  // the password is in no line the host printed
        }
    }

    /// A deployment subscribed over TLS (`mqtts://`) to `broker`, trusting the certificate
    /// authority `caFile` (nil: the system's roots only).
    static func tlsWorkspace(_ broker: MosquittoBroker, _ name: String, caFile: String?) throws -> FixtureWorkspace {
        let ws = FixtureWorkspace(name)
        try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
        Fixtures.write(broker.password + "\n", to: ws.root + "/mqtt-password")
        var mqtt: [String: Any] = ["url": "mqtts://127.0.0.1:\(broker.port)", "username": broker.user, "passwordFile": ws.root + "/mqtt-password"]
        if let caFile { mqtt["caFile"] = caFile }
        ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel", "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                 "notifications": ["spaces": true], "sync": [:] as [String: Any]]]],
                           extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                                 "location": ["mqtt": mqtt]]])
        return ws
    }

    @Test(.hangWatchdog, .needs("openssl")) func overTLSPositionsArriveWhereTheCertificateIsTrustedAndNowhereElse() async throws {
        let broker = try await MosquittoBroker(tls: true)
        try await withCleanup({ await broker.stop() }) {
            // Trusting the broker's authority: the position reaches the trip (an IP address in the
            // URL, checked against the certificate's IP name, since SNI carries no addresses).
            let serve = try await ServeProcess.start(try Self.tlsWorkspace(broker, "owntracks-mqtts", caFile: broker.caFile))
            defer { serve.process.terminate() }
            _ = try await Self.call(serve, "account-setup", #"{"username": "ada", "pin": "4826"}"#)
            let trip = try #require(try await Self.call(serve, "trip-start", #"{"destination": {"name": "Home", "lat": 50.088, "lon": 14.42}}"#)["id"]?.stringValue)
            try await broker.publish(Self.location(0), to: "owntracks/ada/phone")
            #expect(try await Self.positions(serve, trip: trip, count: 1).map { $0["lat"] } == [50.07])
            _ = try await serve.terminate()

            // Without the authority (the system's roots only) the host refuses the broker and says so
            // in its log (stderr), naming the broker, never the password.
            let untrusting = try Self.tlsWorkspace(broker, "owntracks-mqtts-untrusted", caFile: nil)
            let host = try ChildProcess(Fixtures.tesseraExecutable, ["serve", "--deployment", untrusting.deploymentFile, "--data", untrusting.dataDirectory,
                                                                     "--port", "0"], stdout: .null, stderr: .pipe)
            defer { host.terminate() }
            let log = try #require(host.standardError)
            let said = try await onThread {
                var text = ""
                while !text.contains("owntracks-mqtt") {
                    let chunk = log.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                return text
            }
            let lines = said.split(separator: "\n").filter { $0.contains("owntracks-mqtt") }
            #expect(lines.contains { $0.contains("MQTT 127.0.0.1:\(broker.port)") && $0.lowercased().contains("certificate") }, "\(said)")
            #expect(!said.contains(broker.password))
        }
    }
}
