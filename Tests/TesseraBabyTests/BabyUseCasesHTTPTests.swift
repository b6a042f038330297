import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The spec's use cases (specs/baby-diary.md §2) as a person meets them: each driven over HTTP
/// against a real `tessera serve` with the module loaded by dlopen, on the virtual clock
/// (2026-03-02T08:00Z, 09:00 in Prague), and the reminders seen arriving in the inbox
/// (`GET /v1/notifications`) as `POST /v1/clock/advance` moves the clock.
@Suite(.serialized, .hangWatchdog) struct BabyUseCasesHTTPTests {
    /// The served device: a user's token for the diary, an admin's for the clock.
    struct Served {
        let port: Int
        let token: String
        let admin: String

        /// `POST /v1/plugins/cz.tessera.baby/ops/OPERATION` with `input`: the status and the answer.
        func call(_ operation: String, _ input: String = "{}") async throws -> (Int, JSONValue) {
            let (status, body, _) = try await BabyProcessTests.http("POST", port, "/v1/plugins/cz.tessera.baby/ops/\(operation)",
                                                                     token: token, body: Data(input.utf8))
            return (status, try JSONValue(parsing: String(decoding: body, as: UTF8.self)))
        }

        /// The answer of a call that must succeed.
        func ok(_ operation: String, _ input: String = "{}") async throws -> JSONValue {
            let (status, answer) = try await call(operation, input)
            #expect(status == 200, "\(operation) \(input) → \(status): \(answer)")
            return answer
        }

        func advance(_ by: String) async throws {
            let (status, _, _) = try await BabyProcessTests.http("POST", port, "/v1/clock/advance", token: admin,
                                                                  body: Data(#"{"by": "\#(by)"}"#.utf8))
            #expect(status == 200)
        }

        /// The inbox, oldest first: each entry's title, body and due time.
        func inbox() async throws -> [(title: String, body: String, due: String)] {
            let (status, body, _) = try await BabyProcessTests.http("GET", port, "/v1/notifications?limit=500", token: token)
            #expect(status == 200)
            let entries = try JSONValue(parsing: String(decoding: body, as: UTF8.self))["notifications"]?.arrayValue ?? []
            return entries.reversed().map { ($0["title"]?.stringValue ?? "", $0["body"]?.stringValue ?? "", $0["dueAt"]?.stringValue ?? "") }
        }
    }

    /// Serves a fresh device and runs `body` against it.
    func withServedDevice(_ name: String, _ body: (Served) async throws -> Void) async throws {
        let device = BabyProcessTests.Device(name)
        func newToken(_ arguments: [String]) async throws -> String {
            try await device.tessera(["token"] + arguments).stdout.split(separator: "\n").last.map(String.init) ?? ""
        }
        let token = try await newToken(["create", "--role", "user", "ada"]), admin = try await newToken(["create", "--role", "admin", "operator"])
        let (server, port) = try await BabyProcessTests.serve(device.workspace)
        do { try await body(Served(port: port, token: token, admin: admin)) } catch {
            await server.terminateAndWait()
            throw error
        }
        await server.terminateAndWait()
    }

    /// UC7, UC8, UC9–UC13, UC14–UC16, UC18–UC20: a child, its health card, growth and records.
    @Test func aChildsProfileHealthCardGrowthTimelineAndCalendar() async throws {
        try await withServedDevice("uc-profile") { device in
            // UC7: name and birth date required, height and weight optional.
            let child = try await device.ok("child-create", #"{"name": "Ema", "birthDate": "2025-06-15", "sex": "girl", "heightCm": 71, "weightKg": 8.45}"#)
            let id = try #require(child["id"]?.stringValue)
            let (missing, refusal) = try await device.call("child-create", #"{"name": "Jan"}"#)
            #expect(missing == 400 && refusal.serialized().contains("birthDate"))

            // UC9, UC13: blood group from the fixed set, insurer only from the list.
            let card = try await device.ok("health-card-set", #"{"childId": "\#(id)", "bloodGroup": "A+", "insurer": "111"}"#)
            #expect(card["bloodGroup"] == "A+" && card["insurer"]?["code"] == "111")
            #expect(try await device.call("health-card-set", #"{"childId": "\#(id)", "bloodGroup": "C+"}"#).0 == 400)
            #expect(try await device.call("health-card-set", #"{"childId": "\#(id)", "insurer": "999"}"#).0 == 400)
            // UC10–UC12: an allergy with its severity, a past disease by month, an upcoming vaccination.
            _ = try await device.ok("allergy-add", #"{"childId": "\#(id)", "allergen": "pyl", "severity": "moderate", "note": "rýma na jaře"}"#)
            _ = try await device.ok("disease-add", #"{"childId": "\#(id)", "name": "plané neštovice", "month": "2026-01"}"#)
            _ = try await device.ok("vaccination-add", #"{"childId": "\#(id)", "name": "MMR", "date": "2026-03-20"}"#)
            #expect(try await device.call("allergy-add", #"{"childId": "\#(id)", "allergen": "pyl", "severity": "deadly"}"#).0 == 400)

            // UC14, UC15: measurements of the three kinds; the chart's range.
            _ = try await device.ok("measurement-add", #"{"childId": "\#(id)", "kind": "height", "value": 60.5, "date": "2025-10-01"}"#)
            _ = try await device.ok("measurement-add", #"{"childId": "\#(id)", "kind": "headCircumference", "value": 42.1, "date": "2026-02-25"}"#)
            let month = try await device.ok("measurements", #"{"childId": "\#(id)", "kind": "height", "range": "1m"}"#)
            #expect(month["points"]?.arrayValue?.map { $0["value"] } == [71.0])
            let all = try await device.ok("measurements", #"{"childId": "\#(id)", "kind": "height", "range": "all"}"#)
            #expect(all["points"]?.arrayValue?.map { $0["value"] } == [60.5, 71.0])
            #expect(all["percentiles"]?.objectValue != nil, "a girl's chart has the WHO percentiles")

            // UC8: the profile — age by the clock, the latest height and head circumference, the health part.
            let profile = try await device.ok("child-get", #"{"id": "\#(id)"}"#)
            #expect(profile["age"]?["months"] == 8 && profile["age"]?["days"] == 15)
            #expect(profile["latest"]?["height"]?["value"] == 71.0 && profile["latest"]?["headCircumference"]?["value"] == 42.1)
            #expect(profile["health"]?["allergies"]?.arrayValue?.count == 1 && profile["health"]?["diseases"]?.arrayValue?.count == 1)

            // UC16: a preset milestone and a custom one.
            _ = try await device.ok("milestone-add", #"{"childId": "\#(id)", "preset": "firstTooth", "date": "2026-02-20", "note": "dolní jednička"}"#)
            _ = try await device.ok("milestone-add", #"{"childId": "\#(id)", "custom": "první tleskání", "date": "2026-02-27"}"#)

            // UC18: newest first, a page at a time to the oldest.
            let first = try await device.ok("timeline", #"{"limit": 3}"#)
            let dates = first["items"]?.arrayValue?.compactMap { $0["date"]?.stringValue } ?? []
            #expect(dates == dates.sorted(by: >) && dates.count == 3)
            let cursor = try #require(first["nextCursor"]?.stringValue)
            let rest = try await device.ok("timeline", #"{"limit": 200, "cursor": "\#(cursor)"}"#)
            #expect(rest["items"]?.arrayValue?.last?["date"] == "2025-10-01", "scrolled down to the oldest record")
            // UC20: filters by type and child combine.
            let milestones = try await device.ok("timeline", #"{"types": ["milestone"], "childIds": ["\#(id)"]}"#)
            #expect(milestones["items"]?.arrayValue?.map { $0["type"] } == ["milestone", "milestone"])
            // UC19: the month highlights days with items, including the upcoming vaccination; a day lists them.
            let march = try await device.ok("calendar-month", #"{"month": "2026-03", "childIds": ["\#(id)"]}"#)
            let days = march["days"]?.arrayValue?.compactMap { $0["date"]?.stringValue } ?? []
            #expect(days.contains("2026-03-20") && days.contains("2026-03-02"))
            let day = try await device.ok("calendar-day", #"{"date": "2026-03-20", "types": ["vaccination"]}"#)
            #expect(day["items"]?.arrayValue?.map { $0["name"] } == ["MMR"])

            // UC8: only the creator deletes the child; then it is gone.
            _ = try await device.ok("child-delete", #"{"id": "\#(id)"}"#)
            #expect(try await device.call("child-get", #"{"id": "\#(id)"}"#).0 == 404)
        }
    }

    /// UC21–UC28, UC32: contacts, an illness with its records, and reminders that fire into the inbox.
    @Test func contactsAnIllnessAndRemindersThatFireOnTheVirtualClock() async throws {
        try await withServedDevice("uc-illness") { device in
            let id = try #require(try await device.ok("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)

            // UC21: a doctor with specialisation and office hours, a general contact; one of e-mail, phone, address needed.
            let doctor = try await device.ok("contact-add", #"{"childId": "\#(id)", "kind": "doctor", "name": "MUDr. Nováková", "phone": "+420 123 456 789", "email": "novakova@example.cz", "specialization": "pediatrie", "officeHours": "Po–Pá 8–12"}"#)
            let doctorID = try #require(doctor["id"]?.stringValue)
            let grandma = try await device.ok("contact-add", #"{"childId": "\#(id)", "kind": "general", "name": "Babička", "phone": "603 111 222"}"#)
            #expect(try await device.call("contact-add", #"{"childId": "\#(id)", "kind": "general", "name": "Nikdo"}"#).0 == 400)
            // UC22: tel: and mailto: links.
            let doctors = try await device.ok("contacts-list", #"{"childId": "\#(id)", "kind": "doctor"}"#)
            #expect(doctors["contacts"]?.arrayValue?.map { $0["tel"] } == ["tel:+420123456789"])
            #expect(doctors["contacts"]?.arrayValue?.first?["mailto"] == "mailto:novakova@example.cz")
            // UC23: shared outside the app as a vCard.
            let card = try await device.ok("contact-vcard", #"{"id": "\#(doctorID)"}"#)
            #expect(card["mediaType"] == "text/vcard")
            #expect(card["vcard"]?.stringValue?.contains("FN:MUDr. Nováková\r\n") == true)
            // A visit must name a doctor, not a general contact (UC27).
            let notADoctor = try await device.call("visit-add", #"{"childId": "\#(id)", "doctorId": "\#(grandma["id"]?.stringValue ?? "")", "at": "2026-03-03T10:00"}"#)
            #expect(notADoctor.0 == 400 || notADoctor.0 == 422, "\(notADoctor)")

            // UC24: an illness; UC26: a temperature entered alone, then assigned retroactively; UC25: a symptom in it.
            let illness = try #require(try await device.ok("problem-open", #"{"childId": "\#(id)", "kind": "illness", "name": "Angína", "startDate": "2026-03-01"}"#)["id"]?.stringValue)
            let fever = try await device.ok("temperature-add", #"{"childId": "\#(id)", "celsius": 38.6, "at": "2026-03-01T19:30"}"#)
            #expect(fever["fever"] == "fever")
            _ = try await device.ok("record-assign", #"{"id": "\#(fever["id"]?.stringValue ?? "")", "problemId": "\#(illness)"}"#)
            _ = try await device.ok("temperature-add", #"{"childId": "\#(id)", "celsius": 37.2, "at": "2026-03-02T08:30", "problemId": "\#(illness)"}"#)
            _ = try await device.ok("symptom-add", #"{"childId": "\#(id)", "name": "kašel", "at": "2026-03-01", "problemId": "\#(illness)"}"#)
            // UC27: a visit to the doctor, reminded an hour before; UC28: a medication twice a day, with reminders.
            _ = try await device.ok("visit-add", #"{"childId": "\#(id)", "doctorId": "\#(doctorID)", "at": "2026-03-03T10:00", "problemId": "\#(illness)", "remindAt": "2026-03-03T09:00"}"#)
            _ = try await device.ok("medication-add", #"{"problemId": "\#(illness)", "name": "Ospen", "doses": [{"time": "08:00", "dose": "5 ml"}, {"time": "20:00", "dose": "5 ml"}], "until": "2026-03-03", "notify": true}"#)
            // UC12: an upcoming vaccination with its reminder at an exact minute.
            _ = try await device.ok("vaccination-add", #"{"childId": "\#(id)", "name": "MMR", "date": "2026-03-04", "remindAt": "2026-03-04T07:30"}"#)

            // UC24: one screen with the whole course, the temperatures as the chart's series in time order.
            let course = try await device.ok("problem-get", #"{"id": "\#(illness)"}"#)
            #expect(course["temperatures"]?.arrayValue?.map { $0["value"] } == [38.6, 37.2])
            #expect(course["symptoms"]?.arrayValue?.count == 1 && course["doctorVisits"]?.arrayValue?.count == 1)
            #expect(course["medications"]?.arrayValue?.first?["notify"] == true)
            // UC28: the medicine's name is suggested later.
            #expect(try await device.ok("suggestions", #"{"field": "medication", "prefix": "os"}"#)["values"]?.arrayValue?.first == "Ospen")

            // The reminders, seen in the inbox as the clock moves (Prague is UTC+1 in March).
            #expect(try await device.inbox().isEmpty)
            try await device.advance("10h59m")                     // 2026-03-02 19:59 Prague
            #expect(try await device.inbox().isEmpty, "nothing a minute early")
            try await device.advance("1m")                         // 20:00: the evening dose
            #expect(try await device.inbox().map(\.title) == ["Lék (Ema): Ospen"])
            try await device.advance("13h")                        // 2026-03-03 09:00: the morning dose at 08:00, the visit's reminder at 09:00
            let morning = try await device.inbox()
            #expect(morning.map(\.title) == ["Lék (Ema): Ospen", "Lék (Ema): Ospen", "Návštěva lékaře (Ema): MUDr. Nováková"])
            #expect(morning.map(\.body)[1] == "5 ml v 08:00")
            #expect(morning[2].due.hasPrefix("2026-03-03T08:00:00"))
            try await device.advance("1d")                          // 2026-03-04 09:00: the last evening dose, the vaccination at 07:30
            let after = try await device.inbox()
            #expect(after.dropFirst(3).map(\.title) == ["Lék (Ema): Ospen", "Očkování (Ema): MMR"])
            #expect(after.last?.due.hasPrefix("2026-03-04T06:30:00") == true)
            try await device.advance("3d")                          // the medication ended on the 3rd
            #expect(try await device.inbox().count == 5)

            // UC24: the illness is ended, not before it began.
            #expect(try await device.call("problem-close", #"{"id": "\#(illness)", "endDate": "2026-02-01"}"#).0 == 400)
            #expect(try await device.ok("problem-close", #"{"id": "\#(illness)", "endDate": "2026-03-05"}"#)["endDate"] == "2026-03-05")

            // UC32: the chosen sections as a PDF, kept by the files capability.
            let export = try await device.ok("export", #"{"childId": "\#(id)", "sections": ["profile", "healthProblems", "contacts"], "format": "pdf"}"#)
            #expect(export["pdf"]?["mediaType"] == "application/pdf")
            #expect((export["pdf"]?["size"]?.integerValue ?? 0) > 1000)
        }
    }

    /// Issue 24 and UC29: an invitation names a person or an e-mail address, and the refusal of
    /// both says so by field (the module refuses sharing without a hub, after the schema).
    @Test func anInvitationWithBothPersonAndEmailIsRefusedNamingTheFields() async throws {
        try await withServedDevice("uc-invite") { device in
            let id = try #require(try await device.ok("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)
            let (both, refusal) = try await device.call("share-invite", #"{"childId": "\#(id)", "person": "eva", "email": "eva@example.org", "level": "parent"}"#)
            #expect(both == 400)
            let message = refusal["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("$.email") && message.contains("not both"), "\(message)")
            let (neither, none) = try await device.call("share-invite", #"{"childId": "\#(id)", "level": "parent"}"#)
            #expect(neither == 400 && (none["error"]?["message"]?.stringValue ?? "").contains("$.email"))
            // One of them passes the schema and reaches the module, which has no hub here.
            let (alone, answer) = try await device.call("share-invite", #"{"childId": "\#(id)", "email": "eva@example.org", "level": "parent"}"#)
            #expect(alone != 400, "\(answer)")
            #expect(answer["error"]?["code"] == "not_granted" && answer.serialized().contains("sharing_unavailable"), "\(answer)")
        }
    }
}
