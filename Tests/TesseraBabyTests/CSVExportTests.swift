import Foundation
import Testing
@testable import TesseraBaby
import TesseraTestFixtures

/// CSV (RFC 4180) and JSON export of lists of records. The CSV is read back by Python's csv module,
/// a reader that applications use, not by this code.
@Suite struct CSVExportTests {
    static let awkward = [
        ["2026-01-05", "váha", "4,2", "plain"],
        ["2026-01-06", "poznámka", "řekl \"ahoj\"", "two\r\nlines"],
        ["2026-01-07", " mezery ", "", "only\nLF"],
    ]

    @Test func aHeaderRowThenRecordsEachEndingInCRLF() throws {
        #expect(try CSVTable(header: ["a", "b"], rows: [["1", "2"], ["3", "4"]]).text == "a,b\r\n1,2\r\n3,4\r\n")
        #expect(try CSVTable(header: ["a"], rows: []).text == "a\r\n")
    }

    @Test func fieldsWithCommasQuotesAndLineBreaksAreQuotedAndQuotesDoubled() throws {
        let text = try CSVTable(header: ["date", "kind", "value", "note"], rows: Self.awkward).text
        #expect(text.contains("2026-01-05,váha,\"4,2\",plain\r\n"))
        #expect(text.contains("2026-01-06,poznámka,\"řekl \"\"ahoj\"\"\",\"two\r\nlines\"\r\n"))
        #expect(text.contains("2026-01-07, mezery ,,\"only\nLF\"\r\n"))  // spaces are part of a field (§2.4)
    }

    @Test func pythonsCSVReaderReadsBackTheSameFields() async throws {
        let header = ["date", "kind", "value", "note"]
        let text = try CSVTable(header: header, rows: Self.awkward).text
        let parsed = try await PythonCSV.read(text)
        #expect(parsed == [header] + Self.awkward)
    }

    @Test func aRaggedRowIsRefusedNamingIt() {
        #expect(throws: CSVTableError.rowWidth(row: 2, fields: 1, expected: 2)) {
            try CSVTable(header: ["a", "b"], rows: [["1", "2"], ["3"]])
        }
        #expect(CSVTableError.rowWidth(row: 2, fields: 1, expected: 2).description == "rows[1] has 1 fields, the header has 2")
    }

    struct Measurement: Codable, Equatable {
        let date: Date
        let kind: String
        let value: Double
        let note: String?
    }

    static let measurements = [
        Measurement(date: Date(timeIntervalSince1970: 1_767_225_600), kind: "weight", value: 3.35, note: "porodnice/ordinace"),
        Measurement(date: Date(timeIntervalSince1970: 1_769_904_000), kind: "height", value: 54.5, note: nil),
    ]

    @Test func recordsBecomeColumnsByName() throws {
        let table = CSVTable(records: Self.measurements, columns: [
            CSVColumn("kind") { $0.kind },
            CSVColumn("value") { String($0.value) },
            CSVColumn("note") { $0.note ?? "" },
        ])
        #expect(table.text == "kind,value,note\r\nweight,3.35,porodnice/ordinace\r\nheight,54.5,\r\n")
    }

    @Test func jsonExportIsSortedDatedInUTCAndReadsBack() throws {
        let array = try JSONExport.array(Self.measurements)
        let text = String(decoding: array, as: UTF8.self)
        #expect(text.contains("\"date\" : \"2026-01-01T00:00:00Z\""))
        #expect(text.contains("porodnice/ordinace"))  // no escaped slash
        #expect(text.range(of: "\"date\"")!.lowerBound < text.range(of: "\"kind\"")!.lowerBound)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode([Measurement].self, from: array) == Self.measurements)
        #expect(try JSONExport.array(Self.measurements) == array)  // same records, same bytes

        let document = try JSONSerialization.jsonObject(with: JSONExport.document(Self.measurements, format: "cz.tessera.baby/measurements", exportedAt: Date(timeIntervalSince1970: 1_769_904_000))) as? [String: Any]
        #expect(document?["count"] as? Int == 2 && document?["format"] as? String == "cz.tessera.baby/measurements")
        #expect(document?["exportedAt"] as? String == "2026-02-01T00:00:00Z" && (document?["records"] as? [Any])?.count == 2)

        let lines = String(decoding: try JSONExport.lines(Self.measurements), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty && lines[0].hasPrefix("{\"date\":\"2026-01-01T00:00:00Z\",\"kind\":\"weight\""))
    }

    @Test func aNonFiniteNumberIsRefused() {
        #expect(throws: EncodingError.self) {
            try JSONExport.array([Measurement(date: Date(), kind: "weight", value: .nan, note: nil)])
        }
    }
}

/// Python's csv module reading a CSV text (python3 is on every machine the tests run on), through
/// ``runDetached``: a wait for it on one of Swift concurrency's two threads stalls the other tests.
enum PythonCSV {
    static func read(_ text: String) async throws -> [[String]] {
        let script = "import csv, io, json, sys; print(json.dumps(list(csv.reader(io.StringIO(sys.stdin.buffer.read().decode('utf-8'), newline='')))))"
        let result = try await runDetached("/usr/bin/python3", ["-c", script], input: text)
        return try JSONDecoder().decode([[String]].self, from: Data(result.stdout.utf8))
    }
}
