import Foundation
import Testing
import TesseraRecurrence

/// One rule from `Fixtures/oracle.json`, with the occurrences python-dateutil gives for it (see
/// `scripts/recurrence-oracle.py` for how they were made and normalised to Tessera's semantics).
struct OracleCase: Decodable, Sendable, CustomTestStringConvertible {
    let rule: String
    let timeZone: String
    /// The start instant (UTC), and the same as a local time in `timeZone` for reading failures.
    let start: String
    let startLocal: String
    /// Whether `occurrences` is the whole sequence (the rule ends first); otherwise its first 30.
    let exhaustive: Bool
    let occurrences: [String]

    var testDescription: String { "\(rule) in \(timeZone) from \(startLocal)" }

    /// The fixture, found next to this file rather than in a bundle, so that it works in any
    /// package that includes this test target.
    static func all() throws -> [OracleCase] {
        struct File: Decodable { let cases: [OracleCase] }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/oracle.json")
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cases
    }
}

@Suite struct OracleTests {
    @Test func theFixtureIsThere() throws {
        let cases = try OracleCase.all()
        #expect(cases.count == 200)
        #expect(cases.reduce(0) { $0 + $1.occurrences.count } > 4_000)
        #expect(Set(cases.map(\.timeZone)) == ["Europe/Prague", "America/New_York", "Australia/Sydney", "UTC"])
    }

    /// Every occurrence, found three ways: walking with `next(after:)`, asking `next(after:)` from
    /// just before each one (a fresh jump every time), and listing them with `occurrences`.
    @Test(arguments: try OracleCase.all())
    func agreesWithDateutil(_ oracle: OracleCase) throws {
        let start = utc(oracle.start)
        let recurrence = Recurrence(rule: try RecurrenceRule(parsing: oracle.rule), start: start, timeZone: zone(oracle.timeZone))
        let expected = oracle.occurrences

        #expect(recurrence.prefix(expected.count) == expected)
        for (index, occurrence) in expected.enumerated() {
            let previous = index == 0 ? start.addingTimeInterval(-1) : utc(expected[index - 1])
            #expect(recurrence.next(after: previous).map(iso) == occurrence, "occurrence \(index) after the previous")
            #expect(recurrence.next(after: utc(occurrence).addingTimeInterval(-1)).map(iso) == occurrence,
                    "occurrence \(index) from a second before")
        }
        let last = expected.last.map(utc) ?? start
        #expect(recurrence.occurrences(from: start, through: last, limit: expected.count).map(iso) == expected)
        if oracle.exhaustive {
            #expect(recurrence.next(after: last) == nil, "the rule has ended")
        }
    }
}
