import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraTesting
import TesseraTestFixtures

/// Export (UC32), the growth percentiles (UC15) and a contact as a vCard (UC23), through the
/// module's operations on a real host: the PDF is read back from the files store and checked with
/// poppler (`pdftotext` gets the child's data back, `pdftoppm` renders every page).
@Suite struct BabyExportTests {
    /// Ema, a girl born 2025-06-15, weighed and measured four times.
    static func emaWithMeasurements() async throws -> (PluginTestHost, String) {
        let host = try await BabyFixture.host()
        let child = try await host.call("child-create", ["name": "Ema Nováková", "birthDate": "2025-06-15", "sex": "girl"])
        let id = try #require(child["id"]?.stringValue)
        #expect(child["sex"] == "girl")
        for (date, kg) in [("2025-06-15", 3.2), ("2025-08-15", 5.1), ("2025-11-15", 6.9), ("2026-02-15", 8.0)] {
            _ = try await host.call("measurement-add", ["childId": .string(id), "kind": "weight", "value": .number(kg), "date": .string(date)])
        }
        _ = try await host.call("milestone-add", ["childId": .string(id), "preset": "firstSmile", "date": "2025-08-01", "note": "at grandma's"])
        return (host, id)
    }

    @Test func weightsCarryTheirWHOPercentileForTheChildsAgeAndSex() async throws {
        let (host, id) = try await Self.emaWithMeasurements()
        let series = try await host.call("measurements", ["childId": .string(id), "kind": "weight"])
        let percentiles = try #require(series["percentiles"])
        #expect(percentiles["indicator"] == "weight-for-age" && percentiles["sex"] == "girl")
        let points = try #require(percentiles["points"]?.arrayValue)
        #expect(points.count == 4)
        // At birth 3.2 kg against the girls' median 3.2322 kg (L 0.3809, S 0.14171): z ≈ −0.07.
        #expect(points[0]["ageDays"] == 0)
        let z0 = try #require(points[0]["zScore"]?.doubleValue)
        #expect(abs(z0 - (-0.07)) <= 0.01, "\(z0)")
        let p0 = try #require(points[0]["percentile"]?.doubleValue)
        #expect(abs(p0 - 47.2) <= 0.5, "\(p0)")
        // The five lines from birth to a year at least, the median rising.
        let lines = try #require(percentiles["lines"]?.arrayValue)
        #expect(lines.compactMap { $0["percentile"]?.doubleValue } == [3, 15, 50, 85, 97])
        let median = try #require(lines[2]["points"]?.arrayValue)
        #expect((median.last?["ageDays"]?.doubleValue ?? 0) >= 365)
        #expect((median.first?["value"]?.doubleValue ?? 0) < (median.last?["value"]?.doubleValue ?? 0))
        await host.stop()
    }

    @Test func aChildWithoutARecordedSexHasNoPercentilesAndAWrongSexIsRefused() async throws {
        let (host, id) = try await BabyFixture.withChild()
        _ = try await host.call("measurement-add", ["childId": .string(id), "kind": "weight", "value": 7.0, "date": "2026-01-10"])
        #expect(try await host.call("measurements", ["childId": .string(id), "kind": "weight"])["percentiles"] == .null)
        let wrong = await refusal { try await host.call("child-update", ["id": .string(id), "sex": "other"]) }
        #expect(wrong?.code == .invalidInput && wrong?.field == "$.sex")
        _ = try await host.call("child-update", ["id": .string(id), "sex": "boy"])
        let series = try await host.call("measurements", ["childId": .string(id), "kind": "weight"])
        #expect(series["percentiles"]?["sex"] == "boy")
        await host.stop()
    }

    @Test(.needs("pdftotext", "pdftoppm")) func thePDFExportIsARealPDFWithTheChildsDataAndGrowthChart() async throws {
        let (host, id) = try await Self.emaWithMeasurements()
        let answer = try await host.call("export", ["childId": .string(id), "format": "pdf"])
        let address = try #require(answer["pdf"]?["address"]?.stringValue)
        #expect(answer["pdf"]?["mediaType"] == "application/pdf")
        let pdf = try Self.storedFile(host, address)
        #expect(pdf.starts(with: Array("%PDF-1.4".utf8)))
        let text = try await Poppler.text(of: pdf)
        for expected in ["Ema Nováková", "Born: 2025-06-15", "Sex: girl", "WHO percentiles", "first", "at grandma's", "measurements (4)"] {
            #expect(text.contains(expected), "pdftotext lacks \(expected):\n\(text)")
        }
        let png = try await Poppler.renderPNG(pdf)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        await host.stop()
    }

    @Test func theCSVExportHasEveryRecordInOneTable() async throws {
        let (host, id) = try await Self.emaWithMeasurements()
        let csv = try #require(try await host.call("export", ["childId": .string(id), "format": "csv"])["csv"]?.stringValue)
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.first == "date,type,kind,name,value,note,endDate,author,id")
        #expect(lines.count == 1 + 4 + 1, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("2025-08-01,milestone,") && $0.contains("at grandma's") })
        await host.stop()
    }

    @Test func aDoctorIsSharedAsAVCard() async throws {
        let (host, id) = try await BabyFixture.withChild()
        let doctor = try await host.call("contact-add", ["childId": .string(id), "kind": "doctor", "name": "MUDr. Jana Malá",
                                                          "phone": "+420 777 123 456", "email": "mala@example.cz",
                                                          "specialization": "paediatrics", "officeHours": "Mon–Fri 8–12"])
        let card = try await host.call("contact-vcard", ["id": try #require(doctor["id"])])
        let text = try #require(card["vcard"]?.stringValue)
        #expect(card["mediaType"] == "text/vcard" && card["fileName"] == "MUDr-Jana-Malá.vcf")
        #expect(text.hasPrefix("BEGIN:VCARD\r\nVERSION:4.0\r\n") && text.hasSuffix("END:VCARD\r\n"))
        #expect(text.contains("FN:MUDr. Jana Malá\r\n") && text.contains("ROLE:paediatrics\r\n") && text.contains("EMAIL:mala@example.cz\r\n"))
        #expect(text.contains("tel:+420777123456"))
        let missing = await refusal { try await host.call("contact-vcard", ["id": "nobody"]) }
        #expect(missing?.code == .notFound)
        await host.stop()
    }

    /// The bytes of a file the module stored, from the host's files directory.
    static func storedFile(_ host: PluginTestHost, _ address: String) throws -> Data {
        let root = host.directory + "/data"
        let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.first { $0.hasSuffix("/objects/\(address.prefix(2))/\(address)") }
        return try Data(contentsOf: URL(fileURLWithPath: root + "/" + (try #require(found, "no stored file \(address) under \(root)"))))
    }
}
