import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// UC1–UC4 from the device, with real processes only: a hub (`tessera serve`, role hub, open or
/// operator-only registration) and devices — `tessera sync register` from the CLI, and the device
/// edge's `POST /v1/sync/register`, `/login`, `/logout` and `GET /v1/sync/me` on `tessera serve`.
/// Each refusal is checked by its code: registration closed, an address taken, a weak password, a
/// wrong password, already logged in, a user token, and a hub out of reach; and the password never
/// appears in an answer or in the device's output.
@Suite(.serialized) struct SyncAccountProcessesTests {
    static let password = "correct horse battery"

    static func startHub(registration: String) async throws -> ServeProcess {
        let ws = FixtureWorkspace("sync-account-hub")
        ws.writeDeployment(plugins: [], extra: ["role": "hub", "hub": ["registration": registration]])
        return try await ServeProcess.start(ws)
    }

    static func device(_ name: String, hubPort: Int) -> FixtureWorkspace {
        let ws = FixtureWorkspace("sync-account-\(name)")
        ws.writeDeployment(plugins: [], extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                                              "sync": ["hub": "http://127.0.0.1:\(hubPort)"]]])
        return ws
    }

    static func tessera(_ ws: FixtureWorkspace, _ arguments: [String], input: String? = nil) async throws -> ProcessResult {
        try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory], input: input)
    }

    static func register(_ ws: FixtureWorkspace, _ email: String, password: String = password, terms: Bool = true) async throws -> ProcessResult {
        try await tessera(ws, ["sync", "register", email, "--first-name", "Ada", "--surname", "Lovelace", "--device", "cli"]
                          + (terms ? ["--accept-terms"] : []), input: password + "\n")
    }

    @Test(.hangWatchdog) func theCLIRegistersAndLogsInAtOnceAndNamesEachRefusal() async throws {
        let hub = try await Self.startHub(registration: "open")
        defer { hub.process.terminate() }
        let phone = Self.device("cli-phone", hubPort: hub.port), laptop = Self.device("cli-laptop", hubPort: hub.port)

        let made = try await Self.register(phone, "Ada@Example.org")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("as ada@example.org"), "\(made.stdout)")
        let status = try JSONValue(parsing: try await Self.tessera(phone, ["sync", "status", "--json"]).stdout)
        #expect(status["loggedIn"] == true)
        // The account is the hub's: the other device logs in with the address.
        let login = try await Self.tessera(laptop, ["sync", "login", "ada@example.org", "--device", "laptop"], input: Self.password + "\n")
        #expect(login.status == 0, "\(login.stderr)")

        // A device holds one person's data at a time: registering while logged in is refused.
        let twice = try await Self.register(laptop, "bob@example.org")
        #expect(twice.status != 0 && twice.stderr.contains("log out first"), "\(twice.stderr)")

        let spare = Self.device("cli-spare", hubPort: hub.port)
        let taken = try await Self.register(spare, "ADA@example.org")
        #expect(taken.status == 4 && taken.stderr.contains("email_taken") && taken.stderr.contains("$.email"), "\(taken.stderr)")
        let weak = try await Self.register(spare, "bob@example.org", password: "short")
        #expect(weak.status == 2 && weak.stderr.contains("weak_password"), "\(weak.stderr)")
        #expect(!weak.stderr.contains("short"))
        let terms = try await Self.register(spare, "bob@example.org", terms: false)
        #expect(terms.status == 2 && terms.stderr.contains("terms_not_accepted"), "\(terms.stderr)")
        let spareStatus = try JSONValue(parsing: try await Self.tessera(spare, ["sync", "status", "--json"]).stdout)
        #expect(spareStatus["loggedIn"] == false, "nothing half-done: no refused registration logged the device in")
        _ = try await hub.terminate()

        let closed = try await Self.startHub(registration: "operator")
        defer { closed.process.terminate() }
        let shut = Self.device("cli-closed", hubPort: closed.port)
        let refused = try await Self.register(shut, "cy@example.org")
        #expect(refused.status == 4 && refused.stderr.contains("registration_closed"), "\(refused.stderr)")
        _ = try await closed.terminate()
        // Its port is free now: nothing answers there.
        let away = try await Self.register(shut, "cy@example.org")
        #expect(away.status == 5 && away.stderr.contains("unavailable"), "\(away.stderr)")
    }

    /// The sign-in page's registration (`POST /v1/session/register`, no token): the hub's codes for
    /// each refusal, also where this edge's own input rules refuse first; then the person signed in
    /// with a session cookie and the device logged in to the hub as them; a second registration on
    /// the same device refused (`device_taken`), a taken address (`email_taken`) from another
    /// device, and a hub that takes no registrations (`registration_closed`).
    @Test(.hangWatchdog) func aPersonRegistersFromTheSignInPageAndIsSignedIn() async throws {
        let hub = try await Self.startHub(registration: "open")
        defer { hub.process.terminate() }
        let phone = try await ServeProcess.start(Self.device("session-phone", hubPort: hub.port))
        defer { phone.process.terminate() }
        func register(_ serve: ServeProcess, _ body: String) async throws -> RawResponse {
            try await RawHTTPClient.request(port: serve.port, "POST", "/v1/session/register",
                                            headers: [("Content-Type", "application/json"), ("Origin", "http://127.0.0.1:\(serve.port)")],
                                            body: Array(body.utf8))
        }
        let zuzana = #"{"firstName": "Zuzana", "surname": "Nováková", "email": "Zuzana@Example.org", "password": "\#(Self.password)", "acceptTerms": true}"#
        let setup = try await RawHTTPClient.request(port: phone.port, "GET", "/v1/session/setup")
        #expect(setup.json?["canRegister"] == true, "\(setup.text)")

        for (body, code) in [(zuzana.replacingOccurrences(of: Self.password, with: "short12"), "weak_password"),
                             (zuzana.replacingOccurrences(of: "\"acceptTerms\": true", with: "\"acceptTerms\": false"), "terms_not_accepted"),
                             (zuzana.replacingOccurrences(of: "Zuzana@Example.org", with: "zuzana at example"), "invalid_email"),
                             (zuzana.replacingOccurrences(of: "\"Zuzana\",", with: "\"  \","), "invalid_name")] {
            let refused = try await register(phone, body)
            #expect(refused.status == 400 && refused.json?["error"]?["code"] == .string(code) && !refused.text.contains("short12"), "\(code): \(refused.text)")
        }
        let crossSite = try await RawHTTPClient.request(port: phone.port, "POST", "/v1/session/register",
                                                        headers: [("Content-Type", "application/json"), ("Origin", "https://evil.example")],
                                                        body: Array(zuzana.utf8))
        #expect(crossSite.status == 403 && crossSite.json?["error"]?["code"] == "cross_site", "\(crossSite.text)")

        let made = try await register(phone, zuzana)
        #expect(made.status == 201 && made.json?["name"] == "zuzana@example.org", "\(made.text)")
        let cookie = try #require(made.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let me = try await RawHTTPClient.request(port: phone.port, "GET", "/v1/session", headers: [("Cookie", cookie)])
        #expect(me.json?["name"] == "zuzana@example.org" && me.json?["hubPerson"] == "zuzana@example.org" && me.json?["via"] == "session", "\(me.text)")
        #expect(try await RawHTTPClient.request(port: phone.port, "GET", "/v1/session/setup").json?["canRegister"] == false)
        let second = try await register(phone, zuzana.replacingOccurrences(of: "Zuzana@", with: "petr@"))
        #expect(second.status == 409 && second.json?["error"]?["code"] == "device_taken", "\(second.text)")

        // Her address is hers at the hub: another device cannot register it again.
        let tablet = try await ServeProcess.start(Self.device("session-tablet", hubPort: hub.port))
        defer { tablet.process.terminate() }
        let taken = try await register(tablet, zuzana)
        #expect(taken.status == 409 && taken.json?["error"]?["code"] == "email_taken", "\(taken.text)")
        _ = try await tablet.terminate()
        _ = try await phone.terminate()
        _ = try await hub.terminate()

        let closedHub = try await Self.startHub(registration: "operator")
        defer { closedHub.process.terminate() }
        let shut = try await ServeProcess.start(Self.device("session-closed", hubPort: closedHub.port))
        defer { shut.process.terminate() }
        let closed = try await register(shut, zuzana)
        #expect(closed.status == 403 && closed.json?["error"]?["code"] == "registration_closed", "\(closed.text)")
        _ = try await shut.terminate()
        _ = try await closedHub.terminate()
    }

    @Test(.hangWatchdog) func theDeviceEdgeRegistersLogsInAndOutForAnAdminOnly() async throws {
        let hub = try await Self.startHub(registration: "open")
        defer { hub.process.terminate() }
        let ws = Self.device("http", hubPort: hub.port)
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        let user = try await SchemathesisModulesTests.userToken(ws)
        func send(_ method: String, _ path: String, _ body: String? = nil, token: String? = nil) async throws -> RawResponse {
            var headers = [("Authorization", "Bearer \(token ?? admin)")]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            return try await RawHTTPClient.request(port: serve.port, method, path, headers: headers, body: body.map { Array($0.utf8) })
        }
        let ada = #"{"firstName": "Ada", "surname": "Lovelace", "email": "Ada@Example.org", "password": "\#(Self.password)", "acceptTerms": true, "device": "phone"}"#

        let nobody = try await send("GET", "/v1/sync/me")
        #expect(nobody.status == 200 && nobody.json?["loggedIn"] == false && nobody.json?["person"] == .null, "\(nobody.text)")
        #expect(nobody.json?["hub"] == .string("http://127.0.0.1:\(hub.port)"))
        // A user token may not choose whose data this device holds.
        #expect(try await send("GET", "/v1/sync/me", token: user).status == 403)
        #expect(try await send("POST", "/v1/sync/register", ada, token: user).status == 403)
        #expect(try await send("GET", "/v1/sync/me").json?["loggedIn"] == false)

        let weak = try await send("POST", "/v1/sync/register", ada.replacingOccurrences(of: Self.password, with: "short12"))
        #expect(weak.status == 400 && weak.json?["error"]?["field"] == "$.password" && !weak.text.contains("short12"), "\(weak.text)")
        let extra = try await send("POST", "/v1/sync/register", ada.replacingOccurrences(of: "\"device\"", with: "\"devices\""))
        #expect(extra.status == 400 && extra.json?["error"]?["field"] == "$.devices", "\(extra.text)")

        let made = try await send("POST", "/v1/sync/register", ada)
        #expect(made.status == 201 && made.json?["person"]?["name"] == "ada@example.org" && made.json?["loggedIn"] == true, "\(made.text)")
        let id = try #require(made.json?["person"]?["id"]?.stringValue)
        #expect(try await send("GET", "/v1/sync/me").json?["person"] == ["id": .string(id), "name": "ada@example.org", "displayName": "Ada Lovelace"])
        let again = try await send("POST", "/v1/sync/login", #"{"name": "ada@example.org", "password": "\#(Self.password)"}"#)
        #expect(again.status == 409 && again.json?["error"]?["code"] == "already_logged_in", "\(again.text)")

        let out = try await send("POST", "/v1/sync/logout", "{}")
        #expect(out.status == 200 && out.json?["rows"] == 0, "\(out.text)")
        #expect(try await send("GET", "/v1/sync/me").json?["loggedIn"] == false)
        let wrong = try await send("POST", "/v1/sync/login", #"{"name": "ada@example.org", "password": "not her password"}"#)
        #expect(wrong.status == 403 && wrong.json?["error"]?["code"] == "invalid_credentials", "\(wrong.text)")
        let taken = try await send("POST", "/v1/sync/register", ada)
        #expect(taken.status == 409 && taken.json?["error"]?["code"] == "email_taken" && taken.json?["error"]?["field"] == "$.email", "\(taken.text)")
        let back = try await send("POST", "/v1/sync/login", #"{"name": "ADA@example.org", "password": "\#(Self.password)", "device": "phone"}"#)
        #expect(back.status == 200 && back.json?["person"]?["id"] == .string(id), "\(back.text)")
        #expect(try await send("POST", "/v1/sync/logout", "{}").status == 200)

        _ = try await hub.terminate()
        let away = try await send("POST", "/v1/sync/register", ada.replacingOccurrences(of: "Ada@", with: "bob@"))
        #expect(away.status == 503 && away.json?["error"]?["code"] == "hub_unreachable", "\(away.text)")
        let rest = try await serve.terminate().rest
        #expect(!(serve.output + rest).contains(Self.password) && !rest.contains("short12"))
    }

    /// Issue 41, defect 9: a person sees whether their changes reached the others. `GET
    /// /v1/sync/me` counts, per syncing plugin, this device's changes waiting to be sent and says
    /// when the last round ran and whether it reached the hub: a weight written while the hub is
    /// out of reach waits (and the round says it failed), and is sent once the hub is back.
    @Test(.hangWatchdog) func theDeviceSaysWhichChangesWaitToBeSentAndWhetherTheLastRoundReachedTheHub() async throws {
        let hub = try await Self.startHub(registration: "open")
        defer { hub.process.terminate() }
        let proxy = try FaultProxy(upstreamPort: hub.port, seed: 41)
        proxy.heal()  // no seeded faults: only the outage below
        let ws = FixtureWorkspace("sync-account-waiting")
        try ConsoleBrowserTests.copyShippedManifest("baby", into: ws)
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any],
                                     "files": [:] as [String: Any], "sync": [:] as [String: Any]]
        ws.writeDeployment(plugins: [["id": "cz.tessera.baby", "grants": grants]],
                           extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                                 "sync": ["hub": "http://127.0.0.1:\(proxy.port)"]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        func send(_ method: String, _ path: String, _ body: String? = nil) async throws -> RawResponse {
            var headers = [("Authorization", "Bearer \(admin)")]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            return try await RawHTTPClient.request(port: serve.port, method, path, headers: headers, body: body.map { Array($0.utf8) })
        }
        func baby() async throws -> JSONValue? { try await send("GET", "/v1/sync/me").json?["plugins"]?["cz.tessera.baby"] }
        /// Moves the virtual clock on until the device's state is `wanted` (a round runs 2 s after a
        /// change on the host's clock, and a failed one is tried again on the schedule).
        func advance(until wanted: @escaping (JSONValue?) -> Bool, _ what: String) async throws {
            for _ in 0..<120 {
                if wanted(try await baby()) { return }
                _ = try await send("POST", "/v1/clock/advance", #"{"by": "30s"}"#)
            }
            Issue.record("never: \(what); the device says \(String(describing: try await baby()))")
        }
        let ada = #"{"firstName": "Ada", "surname": "Lovelace", "email": "ada@example.org", "password": "\#(Self.password)", "acceptTerms": true, "device": "phone"}"#
        #expect(try await send("POST", "/v1/sync/register", ada).status == 201)
        let child = try await send("POST", "/v1/plugins/cz.tessera.baby/ops/child-create", #"{"name": "Ema", "birthDate": "2025-09-01", "sex": "girl"}"#)
        let childID = try #require(child.json?["id"]?.stringValue, "\(child.text)")
        try await advance(until: { $0?["waiting"] == 0 && $0?["lastRound"]?["ok"] == true }, "the child sent")

        proxy.goOffline()
        let weight = #"{"childId": "\#(childID)", "kind": "weight", "value": 7.4, "date": "2026-03-02"}"#
        #expect(try await send("POST", "/v1/plugins/cz.tessera.baby/ops/measurement-add", weight).status == 200)
        #expect(try await baby()?["waiting"]?.integerValue ?? 0 >= 1, "the weight waits before any round")
        try await advance(until: { $0?["lastRound"]?["ok"] == false }, "a round that could not reach the hub")
        let failed = try await baby()
        #expect(failed?["waiting"]?.integerValue ?? 0 >= 1, "the weight still waits: \(String(describing: failed))")

        proxy.goOnline()
        try await advance(until: { $0?["waiting"] == 0 && $0?["lastRound"]?["ok"] == true }, "the weight sent once the hub is back")
    }

    /// Issue 46: a hub stops at once on SIGTERM. A device's wait for changes lasts up to 25 s, and
    /// a graceful stop waits for every response: the hub answers the wait "nothing new" as it
    /// stops, instead of letting it run out (a hub took 10–30 s to stop). Printed: how long the
    /// stop took.
    @Test(.hangWatchdog) func aHubStopsWithoutWaitingForItsDevicesWaits() async throws {
        let hub = try await Self.startHub(registration: "open")
        defer { hub.process.terminate() }
        let body = #"{"firstName": "Ada", "surname": "Lovelace", "email": "ada@example.org", "password": "\#(Self.password)", "acceptTerms": true, "device": "phone"}"#
        let made = try await RawHTTPClient.request(port: hub.port, "POST", "/v1/hub/register", headers: [("Content-Type", "application/json")],
                                                   body: Array(body.utf8))
        let token = try #require(made.json?["token"]?.stringValue, "\(made.text)")
        let wait = Task {
            try await RawHTTPClient.request(port: hub.port, "GET", "/v1/hub/sync/cz.tessera.baby/wait?after=0&seconds=25",
                                            headers: [("Authorization", "Bearer \(token)")])
        }
        // Another request answered after it: the hub has read the wait and holds it.
        for _ in 0..<3 { #expect(try await RawHTTPClient.request(port: hub.port, "GET", "/healthz").status == 200) }
        let asked = ContinuousClock.now
        hub.process.terminate()
        let answer = try await wait.value
        let answered = ContinuousClock.now - asked
        let (status, _) = try await hub.terminate()
        let stopped = ContinuousClock.now - asked
        print("hub stop: the wait answered after \(answered), the hub exited after \(stopped) (the wait would have lasted 25 s)")
        #expect(answer.status == 200 && answer.json?["changes"] == false, "\(answer.text)")
        #expect(status == 0)
        #expect(answered < .seconds(20), "the wait ran out instead of being ended: \(answered)")
    }

    /// Signing in to the console of a device whose deployment names a hub (docs/console.md,
    /// "Signing in"): the person's hub account. The first sign-in logs the device in to the hub as
    /// them; the device keeps a hash of the password, so signing in again works with the hub
    /// stopped; another person's hub account cannot sign in to a device that holds hers; logging
    /// the device out removes her console account.
    @Test(.hangWatchdog) func theConsoleSignsInWithTheHubAccountAndAgainWhileTheHubIsDown() async throws {
        let hub = try await Self.startHub(registration: "open")
        defer { hub.process.terminate() }
        let spare = Self.device("console-spare", hubPort: hub.port)
        for email in ["ada@example.org", "bob@example.org"] {
            let made = try await Self.register(spare, email)
            #expect(made.status == 0, "\(made.stderr)")
            _ = try await Self.tessera(spare, ["sync", "logout"])
        }
        let phone = Self.device("console-phone", hubPort: hub.port)
        let serve = try await ServeProcess.start(phone)
        defer { serve.process.terminate() }
        let setup = try await RawHTTPClient.request(port: serve.port, "GET", "/v1/session/setup")
        #expect(setup.json?["firstAccount"] == false && setup.json?["hubPerson"] == .null, "\(setup.text)")
        let credentials = #"{"name": "Ada@Example.org", "password": "\#(Self.password)"}"#
        let first = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/session", headers: [("Content-Type", "application/json")],
                                                    body: Array(credentials.utf8))
        #expect(first.status == 200 && first.json?["name"] == "ada@example.org" && first.headers["set-cookie"] != nil, "\(first.text)")
        #expect(try await RawHTTPClient.request(port: serve.port, "GET", "/v1/session/setup").json?["hubPerson"] == "ada@example.org")

        // bob's hub account: the device holds ada's data, so no.
        let bob = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/session", headers: [("Content-Type", "application/json")],
                                                  body: Array(#"{"name": "bob@example.org", "password": "\#(Self.password)"}"#.utf8))
        #expect(bob.status == 401 && bob.errorCode == "wrong_password", "\(bob.text)")

        // The hub stopped: ada signs in again, from the hash the device kept.
        _ = try await hub.terminate()
        let again = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/session", headers: [("Content-Type", "application/json")],
                                                    body: Array(credentials.utf8))
        #expect(again.status == 200, "\(again.text)")
        let accounts = try String(contentsOfFile: phone.dataDirectory + "/accounts.json", encoding: .utf8)
        let kept = try JSONValue(parsing: Array(accounts.utf8))["accounts"]?.arrayValue ?? []
        #expect(kept.map { $0["name"] } == ["ada@example.org"] && kept.first?["source"] == "hub", "\(accounts)")
        #expect(!accounts.contains(Self.password))
        _ = try await serve.terminate()
    }
}
