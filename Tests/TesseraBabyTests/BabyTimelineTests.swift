import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraTesting

/// Milestones, posts with photos, the timeline with its cursor, filters and the calendar (UC16–UC20).
@Suite struct BabyTimelineTests {
    @Test func milestonesArePresetsOrCustomAndPostsNeedAStoredPhoto() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let smile = try await host.call("milestone-add", ["childId": .string(id), "preset": "firstSmile", "date": "2025-08-01"])
        #expect(smile["kind"] == "firstSmile")
        let custom = try await host.call("milestone-add", ["childId": .string(id), "custom": "První plavání", "date": "2026-01-10"])
        #expect(custom["kind"] == "custom" && custom["name"] == "První plavání")
        let both = await refusal { try await host.call("milestone-add", ["childId": .string(id), "preset": "firstStep", "custom": "x", "date": "2026-01-10"]) }
        #expect(both?.field == "$.preset")

        let photo = try await host.call("photo-put", ["data": .string(BabyFixture.pngBase64)])
        let address = try #require(photo["address"]?.stringValue)
        #expect(photo["mediaType"] == "image/png")
        let post = try await host.call("post-add", ["childId": .string(id), "text": "U babičky", "date": "2026-02-14", "photos": [.string(address)]])
        #expect(post["photos"] == [.string(address)])
        #expect(try await host.call("photo-get", ["address": .string(address)])["address"] == .string(address))
        let unknown = String(repeating: "ab", count: 32)
        let missing = await refusal { try await host.call("post-add", ["childId": .string(id), "text": "x", "date": "2026-02-14", "photos": [.string(unknown)]]) }
        #expect(missing?.field == "$.photos[0]")
        #expect(try await BabyFixture.count(host, "records") == 3)
    }

    @Test func theTimelineIsNewestFirstAPageAtATimeAndAnAddedItemShiftsNoPage() async throws {
        let (host, id) = try await BabyFixture.withChild()
        // 30 weights, one a day through February 2026, and one upcoming vaccination.
        for day in 1...28 {
            _ = try await host.call("measurement-add", ["childId": .string(id), "kind": "weight", "value": .number(7 + Double(day) / 100),
                                                        "date": .string(String(format: "2026-02-%02d", day))])
        }
        _ = try await host.call("vaccination-add", ["childId": .string(id), "name": "Hexavakcína", "date": "2026-02-20"])
        _ = try await host.call("vaccination-add", ["childId": .string(id), "name": "MMR", "date": "2026-06-15"])
        var seen: [String] = [], cursor: JSONValue = .null, pages = 0
        repeat {
            var input: JSONValue = ["limit": 10]
            if case .string = cursor, case .object(var members) = input { members["cursor"] = cursor; input = .object(members) }
            let page = try await host.call("timeline", input)
            seen += page["items"]?.arrayValue?.compactMap { $0["date"]?.stringValue } ?? []
            cursor = page["nextCursor"] ?? .null
            pages += 1
            if pages == 1 {
                // Written between pages, and newer than all: it shows on the first page, not in the next one.
                _ = try await host.call("measurement-add", ["childId": .string(id), "kind": "weight", "value": 8.5, "date": "2026-03-01"])
            }
        } while cursor != .null && pages < 10
        #expect(pages == 3)
        #expect(seen.count == 29, "28 weights and the past vaccination; no future item, no repeat")
        #expect(seen == seen.sorted(by: >))
        #expect(!seen.contains("2026-06-15") && !seen.contains("2026-03-01"))
        let future = try await host.call("timeline", ["limit": 1, "includeFuture": true])
        #expect(future["items"]?[0]?["name"] == "MMR")
        let bad = await refusal { try await host.call("timeline", ["cursor": "not a cursor!"]) }
        #expect(bad?.field == "$.cursor")
    }

    /// A page reads along an index and stops at its limit, whatever the number of records: no
    /// full scan, no sort of everything (SQLite's own plan for the module's query).
    @Test func aPageIsReadAlongAnIndexNeverSortedAfterwards() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let below = TimelinePosition(date: "2026-03-03", id: "")
        let plans: [(String, [SQLValue])] = [
            Diary.recordsPage(childIDs: nil, types: nil, below: below, from: nil, limit: 21, descending: true),
            Diary.recordsPage(childIDs: [id], types: nil, below: below, from: nil, limit: 21, descending: true),
            Diary.recordsPage(childIDs: [id], types: ["temperature", "symptom"], below: below, from: nil, limit: 21, descending: true),
            Diary.vaccinationsPage(childIDs: nil, below: below, from: nil, limit: 21, descending: true),
        ]
        for (sql, parameters) in plans {
            let steps = try await host.query("EXPLAIN QUERY PLAN " + sql, parameters).compactMap { $0["detail"].text }
            let plan = steps.joined(separator: "; ")
            #expect(!steps.contains("SCAN records") && !steps.contains("SCAN health_items"), "\(sql): \(plan)")
            #expect(plan.contains("USING INDEX records_timeline") || plan.contains("USING INDEX records_by_child")
                    || plan.contains("USING INDEX health_items_timeline"), "\(sql): \(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(sql): \(plan)")
        }
    }

    @Test func filtersByTypeAndChildCombine() async throws {
        let (host, ema) = try await BabyFixture.withChild()
        let jan = try #require(try await host.call("child-create", ["name": "Jan", "birthDate": "2023-01-05"])["id"])
        _ = try await host.call("measurement-add", ["childId": .string(ema), "kind": "weight", "value": 8, "date": "2026-02-01"])
        _ = try await host.call("milestone-add", ["childId": .string(ema), "preset": "firstTooth", "date": "2026-02-02"])
        _ = try await host.call("milestone-add", ["childId": jan, "preset": "firstWord", "date": "2026-02-03"])
        _ = try await host.call("vaccination-add", ["childId": jan, "name": "MMR", "date": "2026-02-04"])
        func types(_ filter: JSONValue) async throws -> [String] {
            try await host.call("timeline", filter)["items"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
        }
        #expect(try await types(["types": ["milestone"]]) == ["milestone", "milestone"])
        #expect(try await types(["types": ["milestone"], "childIds": [.string(ema)]]) == ["milestone"])
        #expect(try await types(["childIds": [jan]]) == ["vaccination", "milestone"])
        #expect(try await types(["types": ["vaccination", "measurement"], "childIds": [.string(ema)]]) == ["measurement"])
        let month = try await host.call("calendar-month", ["month": "2026-02", "childIds": [jan]])
        #expect(month["days"] == [["date": "2026-02-03", "types": ["milestone": 1]], ["date": "2026-02-04", "types": ["vaccination": 1]]])
        let day = try await host.call("calendar-day", ["date": "2026-02-02"])
        #expect(day["items"]?.arrayValue?.map { $0["kind"] } == ["firstTooth"])
    }
}
