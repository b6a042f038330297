import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraTesting

/// Illnesses with temperatures, symptoms, doctor visits and medications, and contacts (UC21–UC28).
@Suite struct BabyHealthProblemTests {
    static func doctor(_ host: PluginTestHost, _ child: String) async throws -> JSONValue {
        try await host.call("contact-add", ["childId": .string(child), "kind": "doctor", "name": "MUDr. Nováková", "phone": "+420 123 456 789",
                                            "email": "novakova@example.cz", "specialization": "pediatrie", "officeHours": "Po–Pá 8–12"])
    }

    @Test func temperaturesAreReadInCelsiusBetween30And45WithTheirFeverClass() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let before = try await BabyFixture.counts(host)
        for celsius in [29.9, 45.1] {
            let error = await refusal { try await host.call("temperature-add", ["childId": .string(id), "celsius": .number(celsius), "at": "2026-03-01T20:00"]) }
            #expect(error?.field == "$.celsius" && error?.message.contains("expected at") == true)
        }
        #expect(try await BabyFixture.counts(host) == before)
        var classes: [String] = []
        for celsius in [36.6, 37.6, 38.2, 39.4, 40.3] {
            classes.append(try await host.call("temperature-add", ["childId": .string(id), "celsius": .number(celsius), "at": "2026-03-01T20:00"])["fever"]?.stringValue ?? "")
        }
        #expect(classes == ["normal", "raised", "fever", "high", "veryHigh"])
    }

    /// The charts' threshold lines are exactly where a reading's class changes, upwards from normal.
    @Test func theChartsThresholdsAreWhereTheFeverClassesChange() {
        #expect(Fever.thresholds.map(\.celsius) == [37.5, 38.0, 39.0, 40.0])
        var previous = Fever.normal
        for threshold in Fever.thresholds {
            #expect(Fever.classify(threshold.celsius - 0.1) == previous, "\(threshold.celsius - 0.1)")
            #expect(Fever.classify(threshold.celsius) != previous, "\(threshold.celsius)")
            previous = Fever.classify(threshold.celsius)
        }
    }

    @Test func aProblemHoldsItsRecordsAlsoAssignedLater() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let problem = try await host.call("problem-open", ["childId": .string(id), "kind": "illness", "name": "Angína", "startDate": "2026-02-27"])
        let problemID = try #require(problem["id"])
        let early = try await host.call("temperature-add", ["childId": .string(id), "celsius": 38.4, "at": "2026-02-26T19:00"])
        _ = try await host.call("temperature-add", ["childId": .string(id), "celsius": 39.1, "at": "2026-02-27T07:00", "problemId": problemID])
        _ = try await host.call("symptom-add", ["childId": .string(id), "name": "kašel", "at": "2026-02-27", "problemId": problemID])
        _ = try await host.call("record-assign", ["id": try #require(early["id"]), "problemId": problemID])
        let doctor = try await Self.doctor(host, id)
        _ = try await host.call("visit-add", ["childId": .string(id), "doctorId": try #require(doctor["id"]), "at": "2026-02-28T09:30", "problemId": problemID])
        let detail = try await host.call("problem-get", ["id": problemID])
        #expect(detail["temperatures"]?.arrayValue?.compactMap { $0["value"]?.doubleValue } == [38.4, 39.1], "in time order, the retroactive one too")
        #expect(detail["symptoms"]?.arrayValue?.count == 1 && detail["doctorVisits"]?.arrayValue?.count == 1)
        let closed = try await host.call("problem-close", ["id": problemID, "endDate": "2026-03-01"])
        #expect(closed["endDate"] == "2026-03-01")
        let backwards = await refusal { try await host.call("problem-close", ["id": problemID, "endDate": "2026-02-01"]) }
        #expect(backwards?.field == "$.endDate")
    }

    @Test func aVisitNeedsADoctorAndRemindsAtItsTime() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let general = try await host.call("contact-add", ["childId": .string(id), "kind": "general", "name": "Babička", "phone": "603 111 222"])
        #expect(general["tel"] == "tel:603111222")
        let notADoctor = await refusal { try await host.call("visit-add", ["childId": .string(id), "doctorId": try #require(general["id"]), "at": "2026-03-03T10:00"]) }
        #expect(notADoctor?.field == "$.doctorId")
        let unknown = await refusal { try await host.call("visit-add", ["childId": .string(id), "doctorId": "nobody", "at": "2026-03-03T10:00"]) }
        #expect(unknown?.code == .notFound)
        let doctor = try await Self.doctor(host, id)
        #expect(doctor["mailto"] == "mailto:novakova@example.cz")
        let visit = try await host.call("visit-add", ["childId": .string(id), "doctorId": try #require(doctor["id"]), "at": "2026-03-03T10:00",
                                                      "remindAt": "2026-03-03T09:00"])
        #expect(visit["reminder"]?["at"] == "2026-03-03T09:00")
        _ = try await host.advanceClock(by: 86_400 - 60)  // 2026-03-03 08:59 Prague
        #expect(try host.deliveredNotifications().isEmpty)
        _ = try await host.advanceClock(by: 60)
        #expect(try host.deliveredNotifications().map(\.title) == ["Návštěva lékaře (Ema): MUDr. Nováková"])
        let inUse = await refusal { try await host.call("contact-delete", ["id": try #require(doctor["id"])]) }
        #expect(inUse?.reason == "contact_in_use")
    }

    @Test func aMedicationRemindsAtEachDosingTimeUntilItsLastDay() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let problem = try await host.call("problem-open", ["childId": .string(id), "kind": "illness", "name": "Angína", "startDate": "2026-03-01"])
        let medication = try await host.call("medication-add", [
            "problemId": try #require(problem["id"]), "name": "Ospen", "from": "2026-03-02", "until": "2026-03-03", "notify": true,
            "doses": [["time": "08:00", "dose": "5 ml"], ["time": "20:00", "dose": "5 ml"]],
        ])
        #expect(medication["doses"]?.arrayValue?.count == 2)
        // Now 09:00 on the 2nd: the 20:00 dose of the 2nd, then both on the 3rd, then none.
        _ = try await host.advanceClock(by: 3 * 86_400)
        let bodies = try host.deliveredNotifications().map(\.body)
        #expect(bodies.count == 3, "\(bodies)")
        #expect(Set(try host.deliveredNotifications().map(\.title)) == ["Lék (Ema): Ospen"])
        #expect(try await host.call("suggestions", ["field": "medication"])["values"] == ["Ospen"])
        let badTime = await refusal {
            try await host.call("medication-add", ["problemId": try #require(problem["id"]), "name": "Nurofen", "doses": [["time": "25:00", "dose": "2,5 ml"]]])
        }
        #expect(badTime?.field == "$.doses[0].time")
    }

    /// Issue 41, defect 5 (AS-06): the paediatrician changes the dosing plan mid-illness; the
    /// medication takes the new plan and this device's reminders follow it.
    @Test func aMedicationsDosingPlanCanBeChangedAndItsRemindersFollow() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let problem = try await host.call("problem-open", ["childId": .string(id), "kind": "illness", "name": "Angína", "startDate": "2026-03-01"])
        let medication = try await host.call("medication-add", [
            "problemId": try #require(problem["id"]), "name": "Ospen", "from": "2026-03-02", "until": "2026-03-05", "notify": true,
            "doses": [["time": "20:00", "dose": "5 ml"]],
        ])
        let medicationID = try #require(medication["id"])
        let changed = try await host.call("record-update", ["id": medicationID, "doses": [["time": "12:00", "dose": "7,5 ml"], ["time": "21:00", "dose": "7,5 ml"]]])
        #expect(changed["doses"] == [["time": "12:00", "dose": "7,5 ml"], ["time": "21:00", "dose": "7,5 ml"]], "\(changed)")
        let pending = try host.pendingNotifications().filter { $0.request.key.hasPrefix("baby-\(medicationID.stringValue ?? "")-dose") }
        #expect(pending.map(\.request.body).sorted() == ["7,5 ml v 12:00", "7,5 ml v 21:00"], "\(pending.map(\.request.body))")
        // Only a medication has doses; a bad time is named.
        let symptom = try await host.call("symptom-add", ["childId": .string(id), "name": "kašel", "at": "2026-03-01", "problemId": try #require(problem["id"])])
        let notMedication = await refusal { try await host.call("record-update", ["id": try #require(symptom["id"]), "doses": [["time": "08:00", "dose": "5 ml"]]]) }
        #expect(notMedication?.field == "$.doses")
        let badTime = await refusal { try await host.call("record-update", ["id": medicationID, "doses": [["time": "24:00", "dose": "5 ml"]]]) }
        #expect(badTime?.field == "$.doses[0].time")
    }

    @Test func turningAMedicationsRemindersOffCancelsThem() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let problem = try await host.call("problem-open", ["childId": .string(id), "kind": "injury", "name": "Odřené koleno", "startDate": "2026-03-02"])
        let medication = try await host.call("medication-add", ["problemId": try #require(problem["id"]), "name": "Betadine", "notify": true,
                                                                "doses": [["time": "21:00", "dose": "potřít"]]])
        #expect(try host.pendingNotifications().count == 1)
        _ = try await host.call("medication-notify", ["id": try #require(medication["id"]), "notify": false])
        #expect(try host.pendingNotifications().isEmpty)
        let detail = try await host.call("problem-get", ["id": try #require(problem["id"])])
        #expect(detail["medications"]?[0]?["notify"] == false)
    }
}
