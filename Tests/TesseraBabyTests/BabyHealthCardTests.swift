import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraTesting

/// The health card (UC9–UC13) and a vaccination's reminder at its exact virtual minute.
@Suite struct BabyHealthCardTests {
    @Test func bloodGroupInsurerAllergiesDiseasesAndVaccinations() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let card = try await host.call("health-card-set", ["childId": .string(id), "bloodGroup": "A+", "insurer": "111"])
        #expect(card["bloodGroup"] == "A+")
        #expect(card["insurer"]?["name"] == "Všeobecná zdravotní pojišťovna ČR")
        for (allergen, severity) in [("pyl", "mild"), ("mléko", "moderate"), ("penicilin", "severe")] {
            _ = try await host.call("allergy-add", ["childId": .string(id), "allergen": .string(allergen), "severity": .string(severity), "note": "vyrážka"])
        }
        _ = try await host.call("disease-add", ["childId": .string(id), "name": "plané neštovice", "month": "2026-01"])
        _ = try await host.call("vaccination-add", ["childId": .string(id), "name": "Hexavakcína", "date": "2025-08-15"])
        _ = try await host.call("vaccination-add", ["childId": .string(id), "name": "MMR", "date": "2026-06-15"])
        let health = try await host.call("child-get", ["id": .string(id)])["health"]
        #expect(health?["allergies"]?.arrayValue?.compactMap { $0["severity"]?.stringValue }.sorted() == ["mild", "moderate", "severe"])
        #expect(health?["diseases"]?[0]?["month"] == "2026-01")
        #expect(health?["vaccinations"]?.arrayValue?.map { $0["name"] } == ["Hexavakcína"])
        #expect(health?["upcomingVaccinations"]?.arrayValue?.map { $0["name"] } == ["MMR"])
        // What a person typed is suggested next time, before the presets.
        let suggested = try await host.call("suggestions", ["field": "allergy", "prefix": "p"])["values"]?.arrayValue ?? []
        #expect(suggested.first == "penicilin" || suggested.first == "pyl")
        #expect(Set(suggested.compactMap(\.stringValue)) == ["pyl", "penicilin"])
    }

    /// Issue 41, defect 10: a milestone preset is found by its words, not only its key: "Prv" finds
    /// the four "první …" presets, with their Czech words when the language is given.
    @Test func milestonePresetsAreFoundByTheirWordsInThePersonsLanguage() async throws {
        let (host, _) = try await BabyFixture.withChild()
        let czech = try await host.call("suggestions", ["field": "milestone", "prefix": "Prv", "language": "cs"])
        #expect(czech["values"] == ["firstSmile", "firstTooth", "firstStep", "firstWord"], "\(czech)")
        #expect(czech["labels"]?["firstSmile"] == "první úsměv")
        let anyLanguage = try await host.call("suggestions", ["field": "milestone", "prefix": "zub"])   // "zoubek", "zúbok", without the accents
        #expect(anyLanguage["values"] == ["firstTooth"], "\(anyLanguage)")
        #expect(try await host.call("suggestions", ["field": "milestone", "prefix": "first s"])["values"] == ["firstSmile", "firstStep"])
    }

    @Test func theInsurerComesOnlyFromTheOperatorsList() async throws {
        let config: JSONValue = ["insurers": [["code": "111", "name": "VZP"], ["code": "999", "name": "Nová pojišťovna"]]]
        let (host, id) = try await BabyFixture.withChild(config: config)
        #expect(try await host.call("insurers-list")["insurers"]?.arrayValue?.count == 2)
        #expect(try await host.call("health-card-set", ["childId": .string(id), "insurer": "999"])["insurer"]?["name"] == "Nová pojišťovna")
        let error = await refusal { try await host.call("health-card-set", ["childId": .string(id), "insurer": "205"]) }
        #expect(error?.field == "$.insurer")
        #expect(try await host.call("child-get", ["id": .string(id)])["health"]?["insurer"]?["code"] == "999", "nothing written")
    }

    @Test func aBadSeverityOrMonthIsRefusedByName() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let severity = await refusal { try await host.call("allergy-add", ["childId": .string(id), "allergen": "pyl", "severity": "deadly"]) }
        #expect(severity?.field == "$.severity")
        let month = await refusal { try await host.call("disease-add", ["childId": .string(id), "name": "spalničky", "month": "2026-13"]) }
        #expect(month?.field == "$.month")
        #expect(try await BabyFixture.count(host, "health_items") == 0)
    }

    @Test func anUpcomingVaccinationRemindsAtItsExactVirtualMinute() async throws {
        let (host, id) = try await BabyFixture.withChild()
        // 2026-03-02 09:00 in Prague now; the reminder at 2026-03-05 07:30 local (06:30Z).
        let vaccination = try await host.call("vaccination-add", ["childId": .string(id), "name": "MMR", "date": "2026-03-05", "remindAt": "2026-03-05T07:30"])
        #expect(vaccination["reminder"]?["at"] == "2026-03-05T07:30")
        #expect(try await host.call("reminders-list")["reminders"]?[0]?["next"] == "2026-03-05T07:30")
        // One minute early: nothing. At the minute: the reminder, once.
        _ = try await host.advanceClock(by: 3 * 86_400 - 5_400 - 60)
        #expect(try host.deliveredNotifications().isEmpty)
        _ = try await host.advanceClock(by: 60)
        #expect(try host.deliveredNotifications().map(\.title) == ["Očkování (Ema): MMR"])
        // Issue 41, defect 4: the reminder names the child, for the reader's own words too.
        #expect(try host.deliveredNotifications().first?.message?.values["child"] == .text("Ema"))
        // And an appointment can have its time (the nurse's 9:30), kept as entered.
        let timed = try await host.call("vaccination-add", ["childId": .string(id), "name": "Hexavakcína", "date": "2026-04-02T09:30"])
        #expect(timed["date"] == "2026-04-02T09:30", "\(timed)")
        _ = try await host.advanceClock(by: 86_400)
        #expect(try host.deliveredNotifications().count == 1)
    }

    @Test func aReminderInThePastIsRefusedAndDeletingTheVaccinationCancelsItsReminder() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let past = await refusal { try await host.call("vaccination-add", ["childId": .string(id), "name": "MMR", "date": "2026-03-05", "remindAt": "2026-03-02T08:59"]) }
        #expect(past?.field == "$.remindAt" && past?.reason == "out_of_range")
        #expect(try await BabyFixture.count(host, "health_items") == 0)
        let vaccination = try await host.call("vaccination-add", ["childId": .string(id), "name": "MMR", "date": "2026-03-05", "remindAt": "2026-03-04T18:00"])
        _ = try await host.call("health-item-delete", ["id": try #require(vaccination["id"])])
        #expect(try host.pendingNotifications().isEmpty)
        _ = try await host.advanceClock(by: 5 * 86_400)
        #expect(try host.deliveredNotifications().isEmpty)
    }
}
