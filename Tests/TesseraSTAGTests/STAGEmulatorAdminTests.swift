import TesseraTestFixtures
import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

/// The emulator's own routes: a scenario set up over HTTP (a person, their subject, a grade, a
/// term, the time), then read through the module; refusals that name the field; the command line.
@Suite("STAG emulator: admin routes and command line", .hangWatchdog)
struct STAGEmulatorAdminTests {
    /// POSTs `body` to the emulator's `path`; the status and the plain-text answer.
    func post(_ f: STAGFixture, _ path: String, _ body: JSONValue) async throws -> (Int, String) {
        let response = try await RawHTTPClient.request("POST", url: f.emulator.origin + path, json: body.serialized())
        return (response.status, response.text)
    }

    @Test func aScenarioIsSetUpOverHTTPAndTheModuleSeesIt() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let steps: [(String, JSONValue)] = [
                ("/_emulator/users", ["userName": "SVOBODAE", "firstName": "Eva", "lastName": "Svobodová", "studentNumber": "A21B0100P", "programmeType": "N"]),
                ("/_emulator/login-user", ["userName": "SVOBODAE"]),
                ("/_emulator/subjects", ["student": "A21B0100P", "subject": "KMI/PRG", "name": "Programování", "credits": 6, "semester": "ZS"]),
                ("/_emulator/grades", ["student": "A21B0100P", "subject": "KMI/PRG", "grade": "1", "date": "2025-12-10T09:00:00Z", "semester": "ZS"]),
                ("/_emulator/terms", ["id": 4000001, "subject": "KMI/ALG", "start": "2026-02-10T08:00:00Z", "limit": 5, "otherStudents": 5]),
                ("/_emulator/time", ["now": "2026-01-02T00:00:00Z"]),
                ("/_emulator/ticket-lifetime", ["seconds": 7200]),
            ]
            for (path, body) in steps {
                let (status, text) = try await post(f, path, body)
                #expect(status == 200 && text == "OK", "\(path): \(text)")
            }
            let me = try await f.host.call("complete-login", ["university": "demo", "ticket": .string(try await f.ssoTicket())])
            #expect(me["studentNumber"] == "A21B0100P" && me["userName"] == "SVOBODAE")
            let results = try #require(try await f.host.call("results")["data"])
            #expect(results["creditsEarned"] == 6 && results["weightedAverage"] == .number(1) && results["creditsTarget"] == 120)
            let term = try await f.host.call("exams")["data"]?.arrayValue?.first { $0["termId"] == 4000001 }
            #expect(term?["status"] == "closed" && term?["reasonCode"] == "full")
            let (_, state) = try await post(f, "/_emulator/fault", ["mode": "none"])
            #expect(state == "OK")
            let summary = try #require(try await RawHTTPClient.request("GET", url: f.emulator.origin + "/_emulator/state").json)
            #expect(summary["now"] == "2026-01-02T00:00:00Z" && summary["loginUser"] == "SVOBODAE")
            #expect(summary["users"]?.arrayValue?.contains("SVOBODAE") == true)
        }
    }

    /// Issue 42: 0 and 1 are numbers (on Linux they bridge to Bool, which the emulator refused),
    /// while JSON's true and false still are not.
    @Test func theNumbersZeroAndOneAreNumbersAndABooleanIsNot() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let (status, text) = try await post(f, "/_emulator/terms", ["id": 4000002, "subject": "KMI/ALG", "start": "2026-02-10T08:00:00Z",
                                                                        "limit": 1, "otherStudents": 1])
            #expect(status == 200 && text == "OK", "\(text)")
            let (zero, zeroText) = try await post(f, "/_emulator/terms", ["id": 4000003, "subject": "KMI/ALG", "start": "2026-02-11T08:00:00Z",
                                                                          "limit": 1, "otherStudents": 0])
            #expect(zero == 200 && zeroText == "OK", "\(zeroText)")
            let (refused, message) = try await post(f, "/_emulator/terms", ["id": 4000004, "subject": "KMI/ALG", "start": "2026-02-12T08:00:00Z",
                                                                            "limit": true])
            #expect(refused == 400 && message == "limit: a number")
        }
    }

    static let badRequests: [(String, JSONValue, String)] = [
        ("/_emulator/terms", ["id": 1, "subject": "PRG", "start": "2026-02-10T08:00:00Z", "limit": 5], "subject: DEPARTMENT/CODE, e.g. KMI/PRG"),
        ("/_emulator/terms", ["id": 1, "subject": "KMI/PRG", "start": "2026-02-10T08:00:00Z"], "limit: required"),
        ("/_emulator/terms", ["id": 1118482, "subject": "KMI/PRG", "start": "2026-02-10T08:00:00Z", "limit": 5], "id: term 1118482 exists"),
        ("/_emulator/terms", ["id": 1, "subject": "KMI/PRG", "start": "tomorrow", "limit": 5], "start: an ISO-8601 time such as 2026-01-20T08:00:00Z"),
        ("/_emulator/grades", ["subject": "KMI/PRG", "grade": "7", "date": "2026-01-10T09:00:00Z"], "grade: 1–4, S, N or A–F"),
        ("/_emulator/users", ["userName": "X", "firstName": "A", "lastName": "B"], "studentNumber: a student number or a teacherId (or both)"),
        ("/_emulator/login-user", ["userName": "NOBODY"], "userName: no such user 'NOBODY'; add it with /_emulator/users"),
        ("/_emulator/fault", ["mode": "sometimes"], "mode: one of none, down, slow, 401, 500, malformed"),
        ("/_emulator/time", [:], "now: required"),
    ]

    @Test(arguments: badRequests)
    func badAdminRequestsAreRefusedNamingTheField(path: String, body: JSONValue, message: String) async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let (status, text) = try await post(f, path, body)
            #expect(status == 400)
            #expect(text == message)
        }
    }

    @Test func theCommandLineHasHelpAndRefusesWhatItDoesNotKnow() {
        #expect(EmulatorCommandLine.parse(["--help"]) == .help)
        #expect(EmulatorCommandLine.parse(["-h"]) == .help)
        #expect(EmulatorCommandLine.parse([]) == .serve(port: 9410))
        #expect(EmulatorCommandLine.parse(["--port", "0"]) == .serve(port: 0))
        #expect(EmulatorCommandLine.parse(["--port"]) == .invalid("--port needs a number"))
        #expect(EmulatorCommandLine.parse(["--port", "http"]) == .invalid("--port: 'http' is not a port (0–65535)"))
        #expect(EmulatorCommandLine.parse(["--verbose"]) == .invalid("unknown argument '--verbose'"))
        #expect(EmulatorCommandLine.usage.contains("/_emulator/"))
    }
}
