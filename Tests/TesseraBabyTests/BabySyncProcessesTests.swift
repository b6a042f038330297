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
    static func startHub() async throws -> (ChildProcess, String) {
        let hub = FixtureWorkspace("baby-sync-hub")
        hub.writeDeployment(plugins: [], extra: ["role": "hub"])
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
        defer { if hub.isRunning { hub.terminate(); hub.waitUntilExit() } }
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
        hub.terminate()
        hub.waitUntilExit()
    }
}
