import Foundation
import Testing
import TesseraSDK
import TesseraTesting
@testable import TesseraBaby

/// Issue 41's daily care: timers on the virtual clock, entries added afterwards, what each kind
/// may have, and the day-by-day summary with a night split at midnight. (Now is 9:00 on 2 March
/// 2026 in Prague, BabyFixture's clock.)
@Suite struct BabyCareTests {
    @Test func aBreastFeedIsTimedOnTheHostClockAndOneTimerOfAKindRuns() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let feed = try await host.call("care-start", ["childId": .string(id), "kind": "feed", "side": "left"])
        #expect(feed["running"] == true && feed["method"] == "breast" && feed["side"] == "left" && feed["startedAt"] == "2026-03-02T09:00")
        let twice = await refusal { try await host.call("care-start", ["childId": .string(id), "kind": "feed", "side": "right"]) }
        #expect(twice?.code == .conflict && twice?.reason == "timer_running", "\(String(describing: twice))")
        // Sleep is another kind: it may run beside the feed.
        let sleep = try await host.call("care-start", ["childId": .string(id), "kind": "sleep"])
        #expect(try await host.call("care-list", ["childId": .string(id)])["running"]?.arrayValue?.count == 2)

        _ = try await host.advanceClock(by: 12 * 60 + 40)
        let stopped = try await host.call("care-stop", ["id": try #require(feed["id"])])
        #expect(stopped["running"] == false && stopped["durationMinutes"] == 13 && stopped["endedAt"] == "2026-03-02T09:12", "\(stopped)")
        let again = await refusal { try await host.call("care-stop", ["id": try #require(feed["id"])]) }
        #expect(again?.reason == "not_running")
        let glance = try await host.call("care-list", ["childId": .string(id)])
        #expect(glance["last"]?["feed"]?["side"] == "left" && glance["last"]?["feed"]?["durationMinutes"] == 13)
        #expect(glance["running"]?.arrayValue?.map { $0["id"] } == [sleep["id"]])
        #expect(glance["now"] == "2026-03-02T09:12")
        // A bottle's amount when it stops; a breast feed has none.
        let bottle = try await host.call("care-start", ["childId": .string(id), "kind": "feed", "method": "bottle"])
        let amount = await refusal { try await host.call("care-stop", ["id": try #require(stopped["id"]), "amountMl": 120]) }
        #expect(amount?.reason == "not_running")
        _ = try await host.advanceClock(by: 10 * 60)
        #expect(try await host.call("care-stop", ["id": try #require(bottle["id"]), "amountMl": 120])["amountMl"] == 120)
    }

    @Test func entriesAddedAfterwardsAreCheckedByWhatTheirKindMayHave() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let before = try await BabyFixture.counts(host)
        let wet = try await host.call("care-add", ["childId": .string(id), "kind": "nappy", "at": "2026-03-02T08:40", "nappy": "both", "colour": "yellow"])
        #expect(wet["nappy"] == "both" && wet["colour"] == "yellow" && wet["running"] == false)
        let bare = await refusal { try await host.call("care-add", ["childId": .string(id), "kind": "nappy", "at": "2026-03-02T08:40"]) }
        #expect(bare?.field == "$.nappy")
        let ahead = await refusal { try await host.call("care-add", ["childId": .string(id), "kind": "sleep", "at": "2026-03-02T10:00"]) }
        #expect(ahead?.field == "$.at" && ahead?.reason == "date_in_future")
        let backwards = await refusal {
            try await host.call("care-add", ["childId": .string(id), "kind": "sleep", "at": "2026-03-02T07:00", "endAt": "2026-03-02T06:00"])
        }
        #expect(backwards?.field == "$.endAt" && backwards?.reason == "end_before_start")
        let breastAmount = await refusal {
            try await host.call("care-add", ["childId": .string(id), "kind": "feed", "at": "2026-03-02T07:00", "endAt": "2026-03-02T07:10", "amountMl": 90])
        }
        #expect(breastAmount?.field == "$.amountMl")
        let unknown = await refusal { try await host.call("care-add", ["childId": "nobody", "kind": "tummy", "at": "2026-03-02T07:00"]) }
        #expect(unknown?.code == .notFound)
        #expect(try await BabyFixture.counts(host)["care"] == (before["care"] ?? 0) + 1)
        // An edit keeps what it does not name; a delete removes it.
        let edited = try await host.call("care-update", ["id": try #require(wet["id"]), "nappy": "wet"])
        #expect(edited["nappy"] == "wet" && edited["colour"] == "yellow" && edited["startedAt"] == "2026-03-02T08:40")
        _ = try await host.call("care-delete", ["id": try #require(wet["id"])])
        #expect(try await host.call("care-list", ["childId": .string(id)])["entries"] == [])
    }

    @Test func theSummaryCountsEachDayAndSplitsANightAtMidnight() async throws {
        let (host, id) = try await BabyFixture.withChild()
        _ = try await host.call("care-add", ["childId": .string(id), "kind": "sleep", "at": "2026-03-01T22:30", "endAt": "2026-03-02T06:00"])
        _ = try await host.call("care-add", ["childId": .string(id), "kind": "feed", "method": "bottle", "amountMl": 120,
                                              "at": "2026-03-02T07:00", "endAt": "2026-03-02T07:15"])
        _ = try await host.call("care-add", ["childId": .string(id), "kind": "feed", "side": "right", "at": "2026-03-02T03:10", "endAt": "2026-03-02T03:25"])
        _ = try await host.call("care-add", ["childId": .string(id), "kind": "nappy", "nappy": "dirty", "at": "2026-03-02T07:20"])
        _ = try await host.call("care-add", ["childId": .string(id), "kind": "pumping", "amountMl": 80, "at": "2026-03-02T08:00", "endAt": "2026-03-02T08:20"])
        let summary = try await host.call("care-summary", ["childId": .string(id), "days": 2])
        let days = try #require(summary["days"]?.arrayValue)
        #expect(days.map { $0["day"] } == ["2026-03-01", "2026-03-02"])
        #expect(days[0]["sleepMinutes"] == 90 && days[0]["feeds"] == 0, "\(days[0])")
        #expect(days[1]["sleepMinutes"] == 360 && days[1]["feeds"] == 2 && days[1]["feedMinutes"] == 30 && days[1]["bottleMl"] == 120, "\(days[1])")
        #expect(days[1]["nappies"] == 1 && days[1]["dirty"] == 1 && days[1]["wet"] == 0 && days[1]["pumpingMl"] == 80)
        // The day's log, newest first.
        let log = try await host.call("care-list", ["childId": .string(id)])["entries"]?.arrayValue?.map { $0["startedAt"] }
        #expect(log == ["2026-03-02T08:00", "2026-03-02T07:20", "2026-03-02T07:00", "2026-03-02T03:10"])
        let tooMany = await refusal { try await host.call("care-summary", ["childId": .string(id), "days": 40]) }
        #expect(tooMany?.code == .invalidInput)
    }

    /// What Baby Buddy's API answers for a child, as `care-import` takes it: the lists by name, a
    /// page's `results`, times with their offsets. Seven entries become care entries at the child's
    /// local times (a breastfeed on the left, a formula bottle of 120 ml, solids, a nap, a nappy
    /// both wet and dirty, tummy time, pumping); three are skipped with a code each (a feed still
    /// ahead, a sleep ending before it starts, a change neither wet nor dirty). A dry run writes
    /// nothing; importing again adds nothing.
    @Test func aBabyBuddyLogIsImportedOnceWithWhatCannotBeTakenNamed() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let data: JSONValue = try JSONValue(parsing: #"""
            {"feedings": {"count": 4, "next": null, "previous": null, "results": [
               {"id": 1, "child": 1, "start": "2026-03-01T07:00:00.123456+01:00", "end": "2026-03-01T07:15:40+01:00", "duration": "00:15:40",
                "type": "breast milk", "method": "left breast", "amount": null, "notes": "", "tags": []},
               {"id": 2, "child": 1, "start": "2026-03-01T11:00:00+01:00", "end": "2026-03-01T11:20:00+01:00", "type": "formula", "method": "bottle",
                "amount": 120.0, "notes": "u babičky"},
               {"id": 3, "child": 1, "start": "2026-03-01T12:30:00Z", "end": "2026-03-01T12:45:00Z", "type": "solid food", "method": "parent fed",
                "amount": null, "notes": "mrkev"},
               {"id": 4, "child": 1, "start": "2026-03-05T08:00:00+01:00", "end": "2026-03-05T08:10:00+01:00", "type": "breast milk", "method": "right breast"}]},
             "sleep": [{"id": 7, "start": "2026-03-01T13:00:00+01:00", "end": "2026-03-01T14:30:00+01:00", "nap": true},
                       {"id": 8, "start": "2026-03-01T20:00:00+01:00", "end": "2026-03-01T19:00:00+01:00", "nap": false}],
             "changes": [{"id": 3, "time": "2026-03-01T09:00:00+01:00", "wet": true, "solid": true, "color": "brown", "amount": null, "notes": ""},
                         {"id": 4, "time": "2026-03-01T10:00:00+01:00", "wet": false, "solid": false, "color": ""}],
             "tummy-times": [{"id": 2, "start": "2026-03-01T16:00:00+01:00", "end": "2026-03-01T16:10:00+01:00", "milestone": "zvedla hlavičku"}],
             "pumping": [{"id": 5, "start": "2026-03-01T06:00:00+01:00", "end": "2026-03-01T06:20:00+01:00", "amount": 90.0}]}
            """#)
        let expectedCounts: JSONValue = ["feed": 3, "sleep": 1, "nappy": 1, "tummy": 1, "pumping": 1]
        let expectedSkipped: JSONValue = [["list": "changes", "index": 1, "code": "not_a_change"],
                                          ["list": "feedings", "index": 3, "code": "date_in_future"],
                                          ["list": "sleep", "index": 1, "code": "end_before_start"]]
        let preview = try await host.call("care-import", ["childId": .string(id), "data": data, "dryRun": true])
        #expect(preview["dryRun"] == true && preview["imported"] == expectedCounts && preview["skipped"] == expectedSkipped, "\(preview)")
        #expect(try await host.call("care-list", ["childId": .string(id), "day": "2026-03-01"])["entries"] == [], "a dry run writes nothing")

        let imported = try await host.call("care-import", ["childId": .string(id), "data": data])
        #expect(imported["imported"] == expectedCounts && imported["alreadyImported"] == 0 && imported["skipped"] == expectedSkipped)
        let day = try await host.call("care-list", ["childId": .string(id), "day": "2026-03-01"])["entries"]?.arrayValue ?? []
        #expect(day.count == 7)
        func entry(at start: String) -> JSONValue? { day.first { $0["startedAt"]?.stringValue == start } }
        #expect(entry(at: "2026-03-01T07:00")?["side"] == "left" && entry(at: "2026-03-01T07:00")?["durationMinutes"] == 16)
        #expect(entry(at: "2026-03-01T11:00")?["method"] == "bottle" && entry(at: "2026-03-01T11:00")?["amountMl"] == 120
                && entry(at: "2026-03-01T11:00")?["note"] == "formula. u babičky")
        #expect(entry(at: "2026-03-01T13:30")?["method"] == "solids" && entry(at: "2026-03-01T13:30")?["note"] == "mrkev", "12:30Z is 13:30 in Prague")
        #expect(entry(at: "2026-03-01T13:00")?["kind"] == "sleep" && entry(at: "2026-03-01T13:00")?["durationMinutes"] == 90)
        #expect(entry(at: "2026-03-01T09:00")?["nappy"] == "both" && entry(at: "2026-03-01T09:00")?["colour"] == "brown")
        #expect(entry(at: "2026-03-01T16:00")?["kind"] == "tummy" && entry(at: "2026-03-01T16:00")?["note"] == "zvedla hlavičku")
        #expect(entry(at: "2026-03-01T06:00")?["kind"] == "pumping" && entry(at: "2026-03-01T06:00")?["amountMl"] == 90)

        let again = try await host.call("care-import", ["childId": .string(id), "data": data])
        #expect(again["imported"] == [:] && again["alreadyImported"] == 7, "\(again)")
        #expect(try await host.call("care-list", ["childId": .string(id), "day": "2026-03-01"])["entries"]?.arrayValue?.count == 7)

        // An unnamed page: each entry recognised by its fields; one that is no Baby Buddy entry is skipped.
        let page: JSONValue = ["count": 2, "results": [["id": 9, "time": "2026-03-01T18:00:00+01:00", "wet": true, "solid": false], ["colour": "red"]]]
        let unnamed = try await host.call("care-import", ["childId": .string(id), "data": page])
        #expect(unnamed["imported"] == ["nappy": 1] && unnamed["skipped"] == [["list": .null, "index": 1, "code": "unknown_entry"]], "\(unnamed)")
        let unknownList = await refusal { try await host.call("care-import", ["childId": .string(id), "data": ["diapers": []]]) }
        #expect(unknownList?.code == .invalidInput && unknownList?.field == "$.data", "\(String(describing: unknownList))")
    }
}
