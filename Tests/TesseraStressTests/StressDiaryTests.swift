import TesseraTestFixtures
import Foundation
import Testing
@testable import TesseraStress
import TesseraTesting

/// §3.3: the diary's rules, in the participant's own day (Prague: 2026-01-01T23:00Z is already
/// January 2nd).
@Suite(.hangWatchdog) struct StressDiaryTests {
    @Test func notesFollowAStressRecordTheSameLocalDayAndOnlyNotesCanBeDeleted() async throws {
        let host = try await StressFixture.consented()
        #expect(await refusal { try await host.call("diary-note", ["text": "dřív"]) }?.reason == "no_stress_record_today")
        #expect(await refusal { try await host.call("diary-record", ["level": 2, "questionId": 101, "text": "x"]) }?.code == "invalid_input")
        #expect(await refusal { try await host.call("diary-record", ["level": 0, "questionId": 101, "text": "x"]) }?.code == "invalid_input")
        #expect(try await StressFixture.count(host, "diary") == 0)

        let record = try await host.call("diary-record", ["level": 1, "questionId": 101, "text": "Zkouškové období"])
        #expect(record["day"] == "2026-01-01" && record["question"] == "Co tě teď nejvíc tíží?" && record["kind"] == "stress")
        _ = try await host.advanceClock(by: Date("2026-01-01T22:59:00Z").timeIntervalSince(host.now))
        let note = try await host.call("diary-note", ["text": "Večer lepší"])
        _ = try await host.advanceClock(by: 60)  // midnight in Prague
        #expect(await refusal { try await host.call("diary-note", ["text": "nový den"]) }?.reason == "no_stress_record_today")

        // Records and notes can be edited; records cannot be deleted (C1), notes can, with confirm.
        let recordID = try #require(record["id"]?.stringValue), noteID = try #require(note["id"]?.stringValue)
        let edited = try await host.call("diary-edit", ["id": .string(recordID), "text": "Zkouškové, ale zvládám"])
        #expect(edited["text"] == "Zkouškové, ale zvládám" && edited["level"] == 1 && edited["createdAt"] == record["createdAt"])
        #expect(await refusal { try await host.call("diary-note-delete", ["id": .string(recordID), "confirm": true]) }?.reason == "not_deletable")
        #expect(await refusal { try await host.call("diary-note-delete", ["id": .string(noteID)]) }?.reason == "confirmation_required")
        #expect(await refusal { try await host.call("diary-edit", ["id": "missing", "text": "x"]) }?.code == "not_found")
        #expect(try await StressFixture.count(host, "diary") == 2)
        _ = try await host.call("diary-note-delete", ["id": .string(noteID), "confirm": true])
        #expect(try await StressFixture.count(host, "diary") == 1)
        await host.stop()
    }

    @Test func severalRecordsADayListedByDayNewestFirst() async throws {
        let host = try await StressFixture.consented()
        _ = try await host.call("diary-record", ["level": 3, "questionId": 301, "text": "ráno"])
        _ = try await host.advanceClock(by: 3600)
        _ = try await host.call("diary-record", ["level": 2, "questionId": 201, "text": "poledne"])
        _ = try await host.advanceClock(by: 60)
        _ = try await host.call("diary-note", ["text": "poznámka"])
        _ = try await host.advanceClock(by: 86_400)
        _ = try await host.call("diary-record", ["level": 4, "questionId": 401, "text": "druhý den"])
        let days = try #require(try await host.call("diary-list")["days"]?.arrayValue)
        #expect(days.map { $0["day"] } == ["2026-01-02", "2026-01-01"])
        #expect(days[1]["entries"]?.arrayValue?.map { $0["text"] } == ["poznámka", "poledne", "ráno"])
        #expect(try await host.call("diary-list", ["from": "2026-01-02"])["days"]?.arrayValue?.count == 1)
        await host.stop()
    }

    @Test func thePromptDrawsOneQuestionPerLevelFromItsPool() async throws {
        let host = try await StressFixture.consented()
        let prompt = try await host.call("diary-prompt", ["seed": 7])
        #expect(prompt["panel"] == "first" && prompt["notesAllowed"] == false)
        let levels = try #require(prompt["levels"]?.arrayValue)
        #expect(levels.map { $0["level"] } == [1, 2, 3, 4])
        for level in levels {
            let pool = ShippedContent.pack.diaryQuestions.filter { .integer(Int64($0.level)) == level["level"] }.map { JSONValue.integer(Int64($0.id)) }
            #expect(pool.contains(level["questionId"] ?? .null))
        }
        #expect(try await host.call("diary-prompt", ["seed": 7]) == prompt)  // the same seed, the same draw
        var drawn: Set<JSONValue> = []
        for seed in 0..<40 { drawn.insert(try await host.call("diary-prompt", ["seed": .integer(Int64(seed))])["levels"]?[0]?["questionId"] ?? .null) }
        #expect(drawn.count == ShippedContent.pack.diaryQuestions.filter { $0.level == 1 }.count)  // the whole pool is used
        _ = try await host.call("diary-record", ["level": 2, "questionId": 202, "text": "unavená"])
        #expect(try await host.call("dashboard", ["seed": 1])["diary"]?["panel"] == "next")
        await host.stop()
    }

    @Test func theDailyReminderSkipsADayThatAlreadyHasARecord() async throws {
        let host = try await StressFixture.consented()
        _ = try await host.call("settings-set", ["diaryReminder": "20:00"])
        func reminders() throws -> [Date] { try host.deliveredNotifications().filter { $0.key == Study.diaryKey }.map(\.dueAt) }
        _ = try await host.advanceClock(by: Date("2026-01-01T19:30:00Z").timeIntervalSince(host.now))
        #expect(try reminders() == [Date("2026-01-01T19:00:00Z")])  // 20:00 in Prague
        _ = try await host.advanceClock(by: Date("2026-01-02T07:00:00Z").timeIntervalSince(host.now))
        _ = try await host.call("diary-record", ["level": 3, "questionId": 302, "text": "káva"])
        _ = try await host.advanceClock(by: Date("2026-01-03T19:30:00Z").timeIntervalSince(host.now))
        #expect(try reminders() == [Date("2026-01-01T19:00:00Z"), Date("2026-01-03T19:00:00Z")])
        // Turned off: nothing more.
        _ = try await host.call("settings-set", ["diaryReminder": ""])
        _ = try await host.advanceClock(by: 2 * 86_400)
        #expect(try reminders().count == 2)
        await host.stop()
    }
}
