import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The baby diary between people and devices through a real hub (`tessera serve`, role hub),
/// each device its own data directory and `tessera` processes: Ada's phone and laptop edit the
/// same note offline and converge with the conflict kept (§4.8); Ada shares the child with Bob as
/// a guardian, who adds a temperature but may not touch the health card.
@Suite(.serialized, .hangWatchdog) struct BabySyncProcessesTests {
    static let password = "correct horse battery\n"

    /// A served hub with people `ada` and `bob`: the process and its port.
    /// `clock`: the hub's; a virtual one stays at the devices' start, so a device whose clock moved
    /// more than 5 minutes past it has its changes refused as `clock_ahead` (docs/sync.md).
    static func startHub(clock: String = "virtual") async throws -> (ChildProcess, String) {
        let hub = FixtureWorkspace("baby-sync-hub")
        hub.writeDeployment(plugins: [], clock: clock, extra: ["role": "hub"])
        for person in ["ada", "bob"] {
            let added = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", person, "--deployment", hub.deploymentFile,
                                                                         "--data", hub.dataDirectory], input: password)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let (process, port) = try await BabyProcessTests.serve(hub)
        return (process, String(port))
    }

    @Test func twoDevicesConvergeWithTheConflictKeptAndAGuardianIsHeldToHerRights() async throws {
        let (hub, port) = try await Self.startHub()
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }  // only when an expectation threw
        let phone = BabyProcessTests.Device("phone", hubPort: port), laptop = BabyProcessTests.Device("laptop", hubPort: port)
        let nanny = BabyProcessTests.Device("nanny", hubPort: port)
        for (device, person) in [(phone, "ada"), (laptop, "ada"), (nanny, "bob")] {
            try await device.tessera(["sync", "login", person, "--device", device.name], input: Self.password)
        }
        // The laptop says who uses it; the phone and Bob's device learn it from the hub (the new
        // child's owner, the accepted invitation's invitee).
        _ = try await laptop.call("profile-set", #"{"person": "ada", "name": "Ada"}"#)

        // Ada's phone makes the child and a milestone; her laptop gets both.
        let child = try await phone.call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)
        let id = try #require(child["id"]?.stringValue)
        #expect(child["createdBy"] == "ada")
        let step = try await phone.call("milestone-add", #"{"childId": "\#(id)", "preset": "firstStep", "date": "2026-03-01", "note": "v obýváku"}"#)
        let stepID = try #require(step["id"]?.stringValue)
        try await phone.sync()
        try await laptop.sync()
        #expect(try await laptop.call("child-get", #"{"id": "\#(id)"}"#)["level"] == "owner")

        // Offline, both edit the note; after syncing both show one value and keep the other.
        _ = try await phone.call("record-update", #"{"id": "\#(stepID)", "note": "v obýváku u gauče"}"#)
        _ = try await laptop.call("record-update", #"{"id": "\#(stepID)", "note": "v obýváku, úplně sama"}"#)
        for device in [phone, laptop, phone] { try await device.sync() }
        let (onPhone, onLaptop) = (try await phone.call("timeline"), try await laptop.call("timeline"))
        #expect(onPhone == onLaptop)
        var conflicts: [JSONValue] = []
        for device in [phone, laptop] { conflicts.append(try JSONValue(parsing: await device.tessera(["sync", "conflicts", "--json"]).stdout)) }
        #expect(conflicts[0] == conflicts[1])
        let note = conflicts[0].arrayValue?.first { $0["table"] == "records" && $0["column"] == "note" }
        let values = Set(([note?["current"]] + (note?["others"]?.arrayValue ?? [])).compactMap { $0?.stringValue })
        #expect(values == ["v obýváku u gauče", "v obýváku, úplně sama"])

        // A reminder is the phone's own; when the laptop deletes its vaccination, it goes too.
        let vaccination = try await phone.call("vaccination-add", #"{"childId": "\#(id)", "name": "MMR", "date": "2026-03-05", "remindAt": "2026-03-05T08:00"}"#)
        #expect(try await phone.call("reminders-list")["reminders"]?.arrayValue?.count == 1)
        try await phone.sync()
        try await laptop.sync()
        #expect(try await laptop.call("reminders-list")["reminders"] == [], "reminders never sync")
        _ = try await laptop.call("health-item-delete", #"{"id": "\#(try #require(vaccination["id"]?.stringValue))"}"#)
        try await laptop.sync()
        try await phone.sync()
        #expect(try await phone.call("reminders-list")["reminders"] == [])
        try await phone.tessera(["clock", "advance", "4d"])
        #expect(try await phone.notifications().isEmpty)

        // Ada invites Bob as a guardian; Bob accepts and gets the child.
        _ = try await phone.call("share-invite", #"{"childId": "\#(id)", "person": "bob", "level": "guardian"}"#)
        try await phone.sync()
        let waiting = try await nanny.call("invitations-list")["invitations"]?.arrayValue ?? []
        #expect(waiting.map { $0["childName"] } == ["Ema"])
        _ = try await nanny.call("invitation-accept", #"{"invitationId": "\#(try #require(waiting.first?["invitationId"]?.stringValue))"}"#)
        try await nanny.sync()
        #expect(try await nanny.call("child-get", #"{"id": "\#(id)"}"#)["level"] == "guardian")
        let members = try await phone.call("share-members", #"{"childId": "\#(id)"}"#)["members"]?.arrayValue ?? []
        #expect(members.first { $0["person"] == "bob" }?["level"] == "guardian")
        #expect(members.first { $0["person"] == "ada" }?["level"] == "owner")

        // Bob may add a temperature, not change the health card nor Ada's milestone.
        let card = try await nanny.tessera(["call", "cz.tessera.baby", "health-card-set", #"{"childId": "\#(id)", "bloodGroup": "0+"}"#], expecting: 4)
        #expect(card.stderr.contains("health_card_read_only"))
        let adas = try await nanny.tessera(["call", "cz.tessera.baby", "record-update", #"{"id": "\#(stepID)", "note": "x"}"#], expecting: 4)
        #expect(adas.stderr.contains("not_record_creator"))
        _ = try await nanny.call("temperature-add", #"{"childId": "\#(id)", "celsius": 38.3, "at": "2026-03-02T09:30"}"#)
        try await nanny.sync()
        try await phone.sync()
        let temperatures = try await phone.call("timeline", #"{"types": ["temperature"]}"#)["items"]?.arrayValue ?? []
        #expect(temperatures.map { $0["createdBy"] } == ["bob"])
        #expect(temperatures.first?["fever"] == "fever")

        // Ada revokes Bob: his device drops the child; what he entered stays with it (L440).
        _ = try await phone.call("share-revoke", #"{"childId": "\#(id)", "person": "bob"}"#)
        try await nanny.sync()
        #expect(try await nanny.call("children-list")["children"] == [])
        #expect(try await nanny.call("timeline")["items"] == [])
        try await phone.sync()
        #expect(try await phone.call("timeline", #"{"types": ["temperature"]}"#)["items"]?.arrayValue?.count == 1)

        // UC30: Ada invites Bob again and he declines: the invitation is deleted, the child stays away.
        _ = try await phone.call("share-invite", #"{"childId": "\#(id)", "person": "bob", "level": "parent"}"#)
        let again = try await nanny.call("invitations-list")["invitations"]?.arrayValue ?? []
        #expect(again.map { $0["childName"] } == ["Ema"])
        #expect(try await nanny.call("invitation-decline", #"{"invitationId": "\#(try #require(again.first?["invitationId"]?.stringValue))"}"#)["ok"] == true)
        #expect(try await nanny.call("invitations-list")["invitations"] == [])
        #expect(try await phone.call("share-members", #"{"childId": "\#(id)"}"#)["invitations"] == [])
        try await nanny.sync()
        #expect(try await nanny.call("children-list")["children"] == [])
        await hub.terminateAndWait()
    }

    /// Ada's and Bob's devices (data directories named after `names`) logged in to the hub; Ada's
    /// child Ema, shared with Bob as a parent and synced to his device; Ema's id.
    static func emaSharedWithBob(hubPort port: String, names: String) async throws -> (BabyProcessTests.Device, BabyProcessTests.Device, String) {
        let ada = BabyProcessTests.Device("\(names)-ada", hubPort: port), bob = BabyProcessTests.Device("\(names)-bob", hubPort: port)
        for (device, person) in [(ada, "ada"), (bob, "bob")] {
            try await device.tessera(["sync", "login", person, "--device", device.name], input: Self.password)
        }
        let id = try #require(try await ada.call("child-create", #"{"name": "Ema", "birthDate": "2025-09-01"}"#)["id"]?.stringValue)
        try await ada.sync()
        _ = try await ada.call("share-invite", #"{"childId": "\#(id)", "person": "bob", "level": "parent"}"#)
        let invitation = try #require(try await bob.call("invitations-list")["invitations"]?.arrayValue?.first?["invitationId"]?.stringValue)
        _ = try await bob.call("invitation-accept", #"{"invitationId": "\#(invitation)"}"#)
        try await bob.sync()
        return (ada, bob, id)
    }

    /// Issue 41: a timer started on one parent's phone is stopped on the other's. Ada starts a
    /// breastfeed; Bob, a parent of Ema, sees it running after a round and stops it ten minutes
    /// later; after his round and hers, both devices hold one feed, ended, 10 minutes long.
    @Test func aTimerStartedOnOnePhoneIsStoppedOnTheOther() async throws {
        // The hub on the system clock, as a deployed one: the devices' virtual 10 minutes are in its past.
        let (hub, port) = try await Self.startHub(clock: "system")
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }
        let (ada, bob, id) = try await Self.emaSharedWithBob(hubPort: port, names: "timer")

        let feed = try await ada.call("care-start", #"{"childId": "\#(id)", "kind": "feed", "method": "breast", "side": "left"}"#)
        try await ada.sync()
        try await bob.sync()
        let running = try await bob.call("care-list", #"{"childId": "\#(id)"}"#)["running"]?.arrayValue ?? []
        #expect(running.map { $0["id"] } == [feed["id"]], "Ada's feed runs on Bob's phone")

        for device in [ada, bob] { try await device.tessera(["clock", "advance", "10m"]) }
        let stopped = try await bob.call("care-stop", #"{"id": "\#(try #require(feed["id"]?.stringValue))"}"#)
        #expect(stopped["durationMinutes"] == 10)
        try await bob.sync()
        try await ada.sync()
        for device in [bob, ada] {
            let list = try await device.call("care-list", #"{"childId": "\#(id)"}"#)
            #expect(list["running"] == [], "\(device.name): the feed is stopped")
            let feeds = list["entries"]?.arrayValue?.filter { $0["kind"] == "feed" } ?? []
            #expect(feeds.map { $0["durationMinutes"] } == [10], "\(device.name): \(feeds)")
        }
        await hub.terminateAndWait()
    }

    /// Issue 41, defect 9: a change the hub refuses is taken back on the device, and the person is
    /// told why. Bob's phone runs 10 minutes ahead of the hub's clock (the hub's virtual clock stays
    /// at the start): his stop of the feed Ada started on Ema is refused as `clock_ahead`, the feed
    /// runs again on his device after the round, and his inbox says, with Ema's name, to set the
    /// time right.
    @Test func aChangeTheHubRefusesIsTakenBackAndThePersonIsToldWhy() async throws {
        let (hub, port) = try await Self.startHub()
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }
        let (ada, bob, id) = try await Self.emaSharedWithBob(hubPort: port, names: "refused")

        let feed = try #require(try await ada.call("care-start", #"{"childId": "\#(id)", "kind": "feed", "method": "breast", "side": "left"}"#)["id"])
        try await ada.sync()
        try await bob.sync()
        try await bob.tessera(["clock", "advance", "10m"])
        _ = try await bob.call("care-stop", #"{"id": \#(feed.serialized())}"#)
        let round = try JSONValue(parsing: try await bob.tessera(["sync", "now", "--json"]).stdout)
        let rejected = round.arrayValue?.first?["rejected"]?.arrayValue ?? []
        #expect(!rejected.isEmpty && rejected.allSatisfy { $0["reason"] == "clock_ahead" }, "\(round)")
        let running = try await bob.call("care-list", #"{"childId": "\#(id)"}"#)["running"]?.arrayValue ?? []
        #expect(running.map { $0["id"] } == [feed], "the refused stop was taken back: the feed runs again")
        try await bob.tessera(["clock", "advance", "1s"])
        let inbox = try await bob.notifications()
        let told = inbox.filter { $0["message"]?["key"]?.stringValue?.hasPrefix("notify.refused") == true }
        #expect(told.count == 1, "\(inbox)")
        #expect(told.first?["message"]?["key"] == "notify.refusedClock")
        #expect(told.first?["title"] == "Ema: změna nebyla uložena")
        #expect(told.first?["body"] == "Hodiny tohoto zařízení jdou napřed. Nastavte správný čas a změnu zadejte znovu.")
        #expect(try await ada.notifications().isEmpty, "only the device whose change was refused is told")
        await hub.terminateAndWait()
    }

    /// Issue 20: a post's photos are rows of `record_photos`, one address each, so their bytes
    /// travel through the hub like a child's photo: a post with two photos made on Ada's phone is
    /// read on her laptop, and the laptop's `photo-get` serves the same bytes (SHA-256 equal).
    @Test func aPostsTwoPhotosTravelToTheOtherDevice() async throws {
        let (hub, port) = try await Self.startHub()
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }  // only when an expectation threw
        let phone = BabyProcessTests.Device("photo-phone", hubPort: port), laptop = BabyProcessTests.Device("photo-laptop", hubPort: port)
        for device in [phone, laptop] { try await device.tessera(["sync", "login", "ada", "--device", device.name], input: Self.password) }
        let child = try #require(try await phone.call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)
        var photos: [(address: String, bytes: Data)] = []
        for png in [BabyFixture.pngBase64, BabyFixture.secondPNGBase64] {
            let stored = try await phone.call("photo-put", #"{"data": "\#(png)"}"#)
            photos.append((try #require(stored["address"]?.stringValue), try #require(Data(base64Encoded: png))))
        }
        let addresses = photos.map(\.address)
        let post = try await phone.call("post-add", #"{"childId": "\#(child)", "text": "U babičky", "date": "2026-02-28", "photos": ["\#(addresses[0])", "\#(addresses[1])"]}"#)
        let postID = try #require(post["id"]?.stringValue)
        try await phone.sync()
        try await laptop.sync()

        let onLaptop = try await laptop.call("record-get", #"{"id": "\#(postID)"}"#)
        #expect(onLaptop["photos"] == .array(addresses.map { .string($0) }), "the same photos, in order")
        let token = try await laptop.tessera(["token", "create", "--role", "user", "ada"]).stdout.split(separator: "\n").last.map(String.init) ?? ""
        let (server, httpPort) = try await BabyProcessTests.serve(laptop.workspace)
        defer { if server.isRunning { Task { await server.terminateAndWait() } } }  // only when an expectation threw
        for photo in photos {
            let (status, bytes, _) = try await BabyProcessTests.http("GET", httpPort, "/v1/plugins/cz.tessera.baby/ops/photo-get?address=\(photo.address)", token: token)
            #expect(status == 200)
            #expect(bytes == photo.bytes)
            #expect(try await Self.sha256(bytes, in: laptop.workspace.root) == photo.address)
        }
        await server.terminateAndWait()
        await hub.terminateAndWait()
    }

    /// Issue 20 (UC29): Ada invites a parent by e-mail address; the hub mails the invitation
    /// through its mail (a real SMTP server on loopback); the invitee registers with that address,
    /// logs her device in with it, accepts, and has the child as a parent. The hub runs on the
    /// system clock, as its mailer sends on it.
    @Test(.needs("debian-python:aiosmtpd")) func aParentInvitedByEMailRegistersAcceptsAndHasTheChild() async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        let workspace = FixtureWorkspace("baby-mail-hub")
        workspace.writeDeployment(plugins: [], clock: "system", extra: [
            "role": "hub", "hub": ["registration": "open"],
            "providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "system"],
                          "mail": ["kind": "smtp", "host": "127.0.0.1", "port": smtp.port, "from": "hub@tessera.test"]],
        ])
        let added = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", workspace.deploymentFile,
                                                                     "--data", workspace.dataDirectory], input: Self.password)
        #expect(added.status == 0, "\(added.stderr)")
        let (hub, port) = try await BabyProcessTests.serve(workspace)
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }  // only when an expectation threw
        let phone = BabyProcessTests.Device("mail-phone", hubPort: String(port)), eva = BabyProcessTests.Device("mail-eva", hubPort: String(port))
        try await phone.tessera(["sync", "login", "ada", "--device", phone.name], input: Self.password)
        let child = try #require(try await phone.call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)
        try await phone.sync()

        // A malformed address is refused naming the field, before the hub is asked.
        let bad = try await phone.tessera(["call", "cz.tessera.baby", "share-invite", #"{"childId": "\#(child)", "email": "eva at example", "level": "parent"}"#],
                                          expecting: 2)
        #expect(bad.stderr.contains("email"))
        let invited = try await phone.call("share-invite", #"{"childId": "\#(child)", "email": "Eva@Example.org", "level": "parent"}"#)
        #expect(invited["email"] == "eva@example.org" && invited["level"] == "parent")
        try await phone.sync()  // the owner's access row, with the level, goes to the child's space
        let mail = try #require(try await smtp.waitForMessages(1).first)
        #expect(mail.to == ["eva@example.org"])
        #expect(mail.subject.contains("Ema"), "\(mail.subject)")
        // Issue 41, defect 6: the owner sees whom the pending invitation is for, and at which level.
        let pending = try await phone.call("share-members", #"{"childId": "\#(child)"}"#)["invitations"]?.arrayValue ?? []
        #expect(pending.map { $0["person"] } == ["eva@example.org"] && pending.map { $0["level"] } == ["parent"], "\(pending)")

        let registered = try await RawHTTPClient.request("POST", url: "http://127.0.0.1:\(port)/v1/hub/register", json: """
            {"firstName": "Eva", "surname": "Nováková", "email": "eva@example.org", "password": "correct horse battery", "acceptTerms": true, "device": "web"}
            """)
        #expect(registered.status == 201)
        try await eva.tessera(["sync", "login", "eva@example.org", "--device", eva.name], input: Self.password)
        let waiting = try await eva.call("invitations-list")["invitations"]?.arrayValue ?? []
        #expect(waiting.map { $0["childName"] } == ["Ema"])
        #expect(waiting.map { $0["level"] } == ["parent"], "the invitee is told the level asked: \(waiting)")
        _ = try await eva.call("invitation-accept", #"{"invitationId": "\#(try #require(waiting.first?["invitationId"]?.stringValue))"}"#)
        try await eva.sync()
        #expect(try await eva.call("child-get", #"{"id": "\#(child)"}"#)["level"] == "parent")
        // A parent may change the health card, which a guardian may not.
        _ = try await eva.call("health-card-set", #"{"childId": "\#(child)", "bloodGroup": "0+"}"#)
        let members = try await phone.call("share-members", #"{"childId": "\#(child)"}"#)["members"]?.arrayValue ?? []
        #expect(members.first { $0["person"] == "eva@example.org" }?["level"] == "parent")
        await hub.terminateAndWait()
    }

    /// The SHA-256 of `bytes`, by `sha256sum` over a file in `directory`.
    static func sha256(_ bytes: Data, in directory: String) async throws -> String {
        let file = directory + "/photo-\(UUID().uuidString)"
        try bytes.write(to: URL(fileURLWithPath: file))
        let result = try await runDetached("/usr/bin/sha256sum", [file])
        return String(result.stdout.prefix(64))
    }
}
