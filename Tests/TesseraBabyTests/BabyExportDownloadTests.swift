import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraTesting
import TesseraTestFixtures

/// UC24's temperature chart in the PDF export, and UC32's download: the PDF goes to the one who
/// asked for it (`export-download`), to nobody else, not once its person may no longer export, and
/// never through `photo-get`; an export's row is forgotten after its lifetime.
@Suite struct BabyExportDownloadTests {
    /// Ema with an illness and three temperatures in it; returns the host, the child and the illness.
    static func emaWithAngina() async throws -> (PluginTestHost, String, String) {
        let (host, child) = try await BabyFixture.withChild()
        let illness = try await host.call("problem-open", ["childId": .string(child), "kind": "illness", "name": "Angína", "startDate": "2026-03-01"])
        let problem = try #require(illness["id"]?.stringValue)
        for (at, celsius) in [("2026-03-01T08:00", 37.2), ("2026-03-01T19:30", 38.6), ("2026-03-02T07:30", 39.4)] {
            _ = try await host.call("temperature-add", ["childId": .string(child), "celsius": .number(celsius), "at": .string(at), "problemId": .string(problem)])
        }
        return (host, child, problem)
    }

    @Test(.needs("pdftotext", "pdftoppm")) func anIllnessesTemperaturesAreChartedAgainstTheFeverThresholdsInThePDF() async throws {
        let (host, child, _) = try await Self.emaWithAngina()
        let answer = try await host.call("export", ["childId": .string(child), "sections": ["healthProblems"], "format": "pdf"])
        let pdf = try BabyExportTests.storedFile(host, try #require(answer["pdf"]?["address"]?.stringValue))
        let text = try await Poppler.text(of: pdf)
        for expected in ["Angína: temperatures (1 March 2026)", "37.5 °C raised", "38 °C fever", "39 °C high fever", "40 °C very high", "1 Mar 19:30",
                         "health problems (1)"] {
            #expect(text.contains(expected), "pdftotext lacks \(expected):\n\(text)")
        }
        #expect(try await Poppler.renderPNG(pdf).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // Without the section, no chart.
        let without = try await host.call("export", ["childId": .string(child), "sections": ["measurements"], "format": "pdf"])
        let otherPDF = try BabyExportTests.storedFile(host, try #require(without["pdf"]?["address"]?.stringValue))
        let other = try await Poppler.text(of: otherPDF)
        #expect(!other.contains("temperatures"))
        await host.stop()
    }

    /// The temperature chart in Czech: its title and days as a Czech reader writes them, the
    /// thresholds named as the Czech paediatric classes with a decimal comma, the table's heading.
    @Test(.needs("pdftotext")) func anIllnessesTemperatureChartSpeaksCzechWhenAsked() async throws {
        let (host, child, _) = try await Self.emaWithAngina()
        let answer = try await host.call("export", ["childId": .string(child), "sections": ["healthProblems"], "format": "pdf", "language": "cs"])
        let text = try await Poppler.text(of: try BabyExportTests.storedFile(host, try #require(answer["pdf"]?["address"]?.stringValue)))
        for expected in ["Angína: teploty (1. 3. 2026)", "37,5 °C zvýšená teplota", "38 °C horečka", "39 °C vysoká horečka", "1. 3. 19:30",
                         "nemoci a úrazy (1)", "nemoc"] {
            #expect(text.contains(expected), "pdftotext lacks \(expected):\n\(text)")
        }
        #expect(!text.contains("temperatures") && !text.contains("fever"), "\(text)")
        await host.stop()
    }

    /// Ada exports; then "nana", who has no grant from Ada, uses the device (a guardian): the same
    /// principal's download is refused, as her export would be.
    @Test func aDownloadIsRefusedOnceThePersonMayNoLongerExport() async throws {
        let host = try await BabyFixture.host()
        _ = try await host.call("profile-set", ["person": "ada"])
        let child = try #require(try await host.call("child-create", ["name": "Ema", "birthDate": "2025-06-15"])["id"])
        let address = try #require(try await host.call("export", ["childId": child, "format": "pdf"])["pdf"]?["address"])
        #expect(try await host.call("export-download", ["address": address])["address"] == address)
        _ = try await host.call("profile-set", ["person": "nana"])
        let refused = await refusal { try await host.call("export-download", ["address": address]) }
        #expect(refused?.code == .forbidden && refused?.reason == "export_forbidden")
        await host.stop()
    }

    @Test func theExportedPDFGoesOnlyToTheOneWhoAskedForIt() async throws {
        let (host, child, problem) = try await Self.emaWithAngina()
        let answer = try await host.call("export", ["childId": .string(child), "format": "pdf"])
        let address = try #require(answer["pdf"]?["address"]?.stringValue)
        #expect(answer["pdf"]?["download"] == .string("/v1/plugins/cz.tessera.baby/ops/export-download?address=\(address)"))
        #expect(answer["pdf"]?["fileName"] == "Ema-diary.pdf")
        #expect(try await host.call("export-download", ["address": .string(address)])["address"] == .string(address))
        // Another principal (the operator) did not ask for it.
        let other = await refusal { try await host.call("export-download", ["address": .string(address)], as: .admin) }
        #expect(other?.code == .notFound && other?.reason == "unknown_export" && other?.field == "$.address")
        // A photo download does not hand out a PDF.
        let asPhoto = await refusal { try await host.call("photo-get", ["address": .string(address)]) }
        #expect(asPhoto?.code == .notFound && asPhoto?.reason == "unknown_photo")
        // Three days on, the next export forgets the old one's row: its download says so.
        try await host.advanceClock(by: 3 * 86_400)
        _ = try await host.call("temperature-add", ["childId": .string(child), "celsius": 37.0, "at": "2026-03-04T08:00", "problemId": .string(problem)])
        let later = try await host.call("export", ["childId": .string(child), "format": "pdf"])
        #expect(later["pdf"]?["address"] != .string(address))
        let stale = await refusal { try await host.call("export-download", ["address": .string(address)]) }
        #expect(stale?.code == .notFound && stale?.reason == "unknown_export")
        #expect(try await BabyFixture.count(host, "exports") == 1)
        await host.stop()
    }
}
