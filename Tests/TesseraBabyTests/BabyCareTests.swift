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
}
