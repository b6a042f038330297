import Foundation
import Testing
@testable import TesseraSTAGEmulator

@Suite("STAG emulator on loopback", .timeLimit(.minutes(2)))
struct STAGEmulatorTests {
    static let rest = "/ws/services/rest2/"

    func started() async throws -> (STAGEmulator, EmulatorClient) {
        let emulator = STAGEmulator(now: STAGDates.parse("15.2.2022 12:00")!)
        let port = try await emulator.start(port: 0)
        return (emulator, EmulatorClient(port: port))
    }

    @Test("SSO redirects to originalURL with a 64-hex stagUserTicket that authenticates REST calls")
    func ssoTicket() async throws {
        let (emulator, client) = try await started()
        defer { Task { await emulator.stop() } }
        let (_, _, response) = try await client.get(client.loginPath)
        #expect(response.url?.absoluteString.hasPrefix(client.base + "/cb?stagUserTicket=") == true)
        #expect(response.url?.absoluteString.contains("stagUserRole=ST") == true)
        let ticket = try await client.ssoTicket()
        #expect(ticket.count == 64)
        let (ok, body, _) = try await client.get(Self.rest + "student/getStudentInfo?osCislo=A21B0123P&outputFormat=json", ticket: ticket)
        #expect(ok == 200)
        #expect(body.contains("\"prijmeni\":\"NOVÁK\""))
        let (denied, _, _) = try await client.get(Self.rest + "student/getStudentInfo?osCislo=A21B0123P", ticket: String(repeating: "0", count: 64))
        #expect(denied == 401)
    }

    @Test("A ticket expires on the emulator's clock; Basic works and sets WSCOOKIE")
    func expiryAndBasic() async throws {
        let (emulator, client) = try await started()
        defer { Task { await emulator.stop() } }
        let ticket = try await client.ssoTicket()
        emulator.state.setNow(emulator.state.now.addingTimeInterval(91 * 86_400))
        let (expired, _, _) = try await client.get(Self.rest + "znamky/getZnamkyByStudent?osCislo=A21B0123P", ticket: ticket)
        #expect(expired == 401)
        let (ok, body, response) = try await client.get(Self.rest + "help/getStagUserForActualUser", basic: "A21B0123P:heslo")
        #expect(ok == 200 && body.contains("\"role\":\"ST\""))
        #expect(response.value(forHTTPHeaderField: "Set-Cookie")?.hasPrefix("WSCOOKIE=") == true)
        let (bad, _, _) = try await client.get(Self.rest + "help/getStagUserForActualUser", basic: "A21B0123P:wrong")
        #expect(bad == 401)
    }

    @Test("Enrolment answers plain text: OK, full, already in another term, deadline passed; terms recomputed")
    func enrolment() async throws {
        let (emulator, client) = try await started()
        defer { Task { await emulator.stop() } }
        let ticket = try await client.ssoTicket()
        func enrol(_ term: Int) async throws -> String {
            try await client.get(Self.rest + "terminy/zapisStudentaNaTermin?termIdno=\(term)&osCislo=A21B0123P", ticket: ticket).1
        }
        #expect(try await enrol(1118483) == "Termín je již plně obsazen.")
        #expect(try await enrol(1118484) == "OK")
        let (_, terms, _) = try await client.get(Self.rest + "terminy/getTerminyProStudenta?osCislo=A21B0123P", ticket: ticket)
        let parsed = try JSONSerialization.jsonObject(with: Data(terms.utf8)) as! [String: Any]
        let db1 = (parsed["termin"] as! [[String: Any]]).first { $0["termIdno"] as? Int == 1118484 }!
        #expect(db1["zapsan"] as? Bool == true)
        #expect(db1["obsazeni"] as? String == "1")
        #expect((db1["datum"] as? [String: String])?["value"] == "28.2.2022")
        emulator.state.setNow(STAGDates.parse("24.2.2022 11:00")!)
        let (_, late, _) = try await client.get(Self.rest + "terminy/odhlasStudentaZTerminu?termIdno=1118482&osCislo=A21B0123P", ticket: ticket)
        #expect(late == "Termín pro odhlášení již vypršel.")
    }

    @Test("Fault injection: down, 401, 500, malformed JSON")
    func faults() async throws {
        let (emulator, client) = try await started()
        defer { Task { await emulator.stop() } }
        let ticket = try await client.ssoTicket()
        let path = Self.rest + "terminy/getTerminyProStudenta?osCislo=A21B0123P"
        for (mode, status) in [("down", 503), ("401", 401), ("500", 500)] {
            #expect(try await client.get("/_emulator/fault?mode=\(mode)", method: "POST").0 == 200)
            #expect(try await client.get(path, ticket: ticket).0 == status)
        }
        _ = try await client.get("/_emulator/fault?mode=malformed", method: "POST")
        let body = try await client.get(path, ticket: ticket).1
        #expect((try? JSONSerialization.jsonObject(with: Data(body.utf8))) == nil)
        _ = try await client.get("/_emulator/fault?mode=none", method: "POST")
        #expect(try await client.get(path, ticket: ticket).0 == 200)
    }
}
