import Foundation
import Testing
import TesseraTestFixtures
import TesseraRecurrence

/// `next(after:)` jumps to the period holding the date instead of walking from the start; these
/// check the jump lands where a walk would.
@Suite struct NextAfterTests {
    @Test func aCenturyAfterTheStart() throws {
        let fridays = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", from: "2026-03-16T08:00:00Z", in: "Europe/Prague")
        #expect(fridays.next(after: utc("2126-07-01T00:00:00Z")).map(iso) == "2126-07-05T06:00:00Z")
        #expect(fridays.next(after: utc("2126-11-01T00:00:00Z")).map(iso) == "2126-11-01T07:00:00Z")
    }

    @Test func beforeTheStartIsTheFirstOccurrence() throws {
        let fridays = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", from: "2026-03-17T08:00:00Z", in: "Europe/Prague")
        #expect(fridays.next(after: .distantPast).map(iso) == "2026-03-20T07:00:00Z")
    }

    /// Rules of several shapes in zones with and without DST, each walked one occurrence at a time
    /// for years, then asked for the next occurrence after many dates in between and beyond.
    @Test(arguments: [
        ("FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=8,17;BYMINUTE=0", "Europe/Prague"),
        ("FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=0,30", "America/New_York"),
        ("FREQ=DAILY;INTERVAL=3;BYHOUR=2;BYMINUTE=30", "Australia/Sydney"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=SU,WE;BYHOUR=2;BYMINUTE=15;WKST=SU", "Europe/Prague"),
        ("FREQ=MONTHLY;BYDAY=-1SU;BYHOUR=2;BYMINUTE=30", "Europe/Prague"),
        ("FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=31,-31", "UTC"),
        ("FREQ=YEARLY;BYMONTH=2,10;BYDAY=1SU,-1SA;BYHOUR=2;BYMINUTE=45", "Australia/Sydney"),
        ("FREQ=YEARLY;INTERVAL=3;BYDAY=53MO,-1FR", "America/New_York"),
    ])
    func agreesWithWalkingOneByOne(_ text: String, _ zoneName: String) throws {
        let rule = try recurrence(text, from: "2025-11-11T11:11:11Z", in: zoneName)
        var walked: [Date] = []
        var next = rule.first
        while let date = next, walked.count < 2_000, date < utc("2060-01-01T00:00:00Z") {
            walked.append(date)
            next = rule.next(after: date)
        }
        #expect(walked.count > 10)
        #expect(zip(walked, walked.dropFirst()).allSatisfy { $0 < $1 }, "strictly increasing")
        // The same list from one sequential walk.
        #expect(rule.occurrences(from: rule.start, through: walked.last!) == walked)

        var generator = SplitMix64(seed: 42)
        let span = walked.last!.timeIntervalSince(walked.first!)
        for _ in 0..<500 {
            let probe = walked.first!.addingTimeInterval(Double(generator.next() % UInt64(span)) - 3_600)
            let expected = walked.first { $0 > probe }
            #expect(rule.next(after: probe) == expected, "after \(iso(probe))")
        }
    }
}

@Suite struct ExtremeDateTests {
    @Test func extremeQueryDatesDoNotTrap() throws {
        let daily = try recurrence("FREQ=DAILY;BYHOUR=9;BYMINUTE=0", from: "2026-01-01T00:00:00Z", in: "Europe/Prague")
        #expect(daily.next(after: Date(timeIntervalSinceReferenceDate: .nan)).map(iso) == "2026-01-01T08:00:00Z")
        #expect(daily.next(after: Date(timeIntervalSinceReferenceDate: -.infinity)).map(iso) == "2026-01-01T08:00:00Z")
        #expect(daily.next(after: .distantFuture) != nil)
        // Beyond the horizon (about 3 million years) there are no occurrences, so this ends.
        #expect(daily.next(after: Date(timeIntervalSinceReferenceDate: .infinity)) == nil)
        let counted = try recurrence("FREQ=DAILY;COUNT=2", from: "2026-01-01T00:00:00Z", in: "UTC")
        #expect(counted.next(after: .distantFuture) == nil)
    }
}
