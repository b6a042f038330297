import Foundation
import Testing
import TesseraRuntime
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// IS/STAG on two of a student's devices through a real hub (issue 38): a note written on one is
/// on the other, edits of different fields made offline on both survive, and a new exam term the
/// phone has announced is not announced again by the laptop.
@Suite("IS/STAG notes and seen marks across a student's devices", .hangWatchdog)
struct STAGHubTests {
    static let manifest = Fixtures.repositoryRoot + "/manifests/stag.json"
    static let plugin = "cz.tessera.stag"

    /// A device host with the module, logged in to the hub as `person` and to IS/STAG as KRALM.
    static func device(_ person: String, _ name: String, hub: HubTestServer, stag: STAGEmulator) async throws -> PluginTestHost {
        let host = try await PluginTestHost(manifest: manifest, plugin: { STAGPlugin() }, start: Date(timeIntervalSince1970: 1_767_225_600),
                                            httpRedirects: ["https://stag-demo.zcu.cz": stag.origin], syncHub: "http://127.0.0.1:\(hub.port)")
        try await host.host.syncLogin(name: person, password: "correct horse battery", device: name)
        _ = try await host.call("login-basic", ["university": "demo", "userName": "KRALM", "password": "heslo123"])
        return host
    }

    static func sync(_ hosts: PluginTestHost...) async throws {
        for host in hosts { _ = try await host.host.syncNow(plugin) }
    }

    static func note(_ id: String, on host: PluginTestHost) async throws -> JSONValue? {
        try await host.call("notes").arrayValue?.first { $0["id"]?.stringValue == id }
    }

    @Test func notesAndSeenMarksFollowTheStudentAcrossDevices() async throws {
        let stag = try await STAGEmulator.start()
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let phone = try await Self.device("ada", "phone", hub: hub, stag: stag)
            let laptop = try await Self.device("ada", "laptop", hub: hub, stag: stag)
            let saved = try await phone.call("note-save", ["title": "Bring a calculator", "text": "the exam allows one"])
            let id = try #require(saved["id"]?.stringValue)
            try await Self.sync(phone, laptop)
            #expect(try await Self.note(id, on: laptop)?["title"] == "Bring a calculator")

            // Offline on both: the phone changes the text, the laptop the day.
            _ = try await phone.call("note-save", ["id": .string(id), "text": "the exam allows one, and a ruler"])
            _ = try await laptop.call("note-save", ["id": .string(id), "day": "2026-02-03"])
            try await Self.sync(phone, laptop, phone)
            for host in [phone, laptop] {
                let note = try await Self.note(id, on: host)
                #expect(note?["text"] == "the exam allows one, and a ruler")
                #expect(note?["day"] == "2026-02-03")
            }

            // A term announced on the phone is seen on the laptop: no second notice there.
            stag.addTerm(EmulatorTerm(id: 2000001, department: "KMI", subject: "PRG", start: STAGEmulator.pragueDate("3.2.2026 10:00"),
                                      room: "402", building: "UC", limit: 15))
            #expect(try await phone.call("refresh")["newTerms"] == 1)
            try await Self.sync(phone, laptop)
            #expect(try await laptop.call("refresh")["newTerms"] == 0)
            await phone.stop()
            await laptop.stop()
        }
        await stag.stop()
    }
}
