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
        for expected in ["Ema Nováková", "Born: 15 June 2025", "Sex: girl", "WHO percentiles", "first", "at grandma's", "measurements (4)"] {
            #expect(text.contains(expected), "pdftotext lacks \(expected):\n\(text)")
        }
        let png = try await Poppler.renderPNG(pdf)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        await host.stop()
    }

    /// Every indicator the measurements give has its chart page: a weight alone gives only
    /// weight-for-age; with a length on the same days come length-for-age, weight-for-length (its
    /// x axis the length in cm) and BMI-for-age, titled in the asked language.
    @Test(.needs("pdftotext")) func thePDFHasAChartForEveryIndicatorTheMeasurementsGive() async throws {
        let (host, id) = try await Self.emaWithMeasurements()
        let pdfText = { (language: String) async throws -> String in
            let answer = try await host.call("export", ["childId": .string(id), "format": "pdf", "language": .string(language)])
            return try await Poppler.text(of: try Self.storedFile(host, try #require(answer["pdf"]?["address"]?.stringValue)))
        }
        let weightsOnly = try await pdfText("en")
        #expect(weightsOnly.components(separatedBy: "against the WHO percentiles").count - 1 == 1, "\(weightsOnly)")
        #expect(!weightsOnly.contains("BMI") && !weightsOnly.contains("weight for length"))

        for (date, cm) in [("2025-06-15", 49.5), ("2025-08-15", 57.0), ("2025-11-15", 65.0), ("2026-02-15", 70.5)] {
            _ = try await host.call("measurement-add", ["childId": .string(id), "kind": "height", "value": .number(cm), "date": .string(date)])
        }
        let english = try await pdfText("en")
        // pdftotext interleaves the turned y axis's label with a title's first words: the ends are compared.
        for title in ["weight against the WHO", "length/height against the WHO", "weight for length/height against the WHO",
                      "BMI for age against the WHO", "Length/height (cm)", "BMI (kg/m²)"] {
            #expect(english.contains(title), "the English PDF lacks \(title):\n\(english)")
        }
        #expect(english.components(separatedBy: "against the WHO percentiles").count - 1 == 4)
        let czech = try await pdfText("cs")
        for title in ["hmotnost k délce/výšce ve srovnání s percentily WHO", "BMI podle věku ve srovnání s percentily WHO", "Délka/výška (cm)"] {
            #expect(czech.contains(title), "the Czech PDF lacks \(title):\n\(czech)")
        }
        await host.stop()
    }

    /// The PDF speaks the person's language: asked in Czech (the page passes the console's
    /// language), its labels, dates ("15. 6. 2025") and numbers ("3,2 kg") are Czech; in Slovak,
    /// Slovak; without a language, English ("15 June 2025", "3.2 kg"); another language is refused.
    /// `pdftotext` reads the letters the PDF writes in its second encoding (č, ř, ě) back as well.
    @Test(.needs("pdftotext")) func thePDFExportSpeaksCzechOrSlovakWhenAskedAndEnglishWithoutALanguage() async throws {
        let (host, id) = try await Self.emaWithMeasurements()
        let pdfText = { (input: JSONValue) async throws -> String in
            let answer = try await host.call("export", input)
            return try await Poppler.text(of: try Self.storedFile(host, try #require(answer["pdf"]?["address"]?.stringValue)))
        }

        let czech = try await pdfText(["childId": .string(id), "format": "pdf", "language": "cs"])
        for expected in ["Ema Nováková", "Datum narození: 15. 6. 2025", "Pohlaví: dívka", "Hmotnost: 8 kg (15. 2. 2026)",
                         "hmotnost ve srovnání s percentily WHO", "Věk (měsíce)", "Ema Nováková: měření (4)", "Ema Nováková: milníky (1)",
                         "Datum", "Druh", "Hodnota / název", "Poznámka", "první úsměv", "3,2 kg", "1. 8. 2025", "at grandma's"] {
            #expect(czech.contains(expected), "the Czech PDF lacks \(expected):\n\(czech)")
        }
        for english in ["Born", "Sex:", "Weight", "measurements (", "2025-06-15", "3.2 kg"] {
            #expect(!czech.contains(english), "the Czech PDF has \(english):\n\(czech)")
        }

        let slovak = try await pdfText(["childId": .string(id), "format": "pdf", "language": "sk"])
        for expected in ["Dátum narodenia: 15. 6. 2025", "Pohlavie: dievča", "Hmotnosť: 8 kg (15. 2. 2026)", "Ema Nováková: merania (4)", "prvý úsmev", "3,2 kg"] {
            #expect(slovak.contains(expected), "the Slovak PDF lacks \(expected):\n\(slovak)")
        }

        let english = try await pdfText(["childId": .string(id), "format": "pdf"])
        for expected in ["Born: 15 June 2025", "Sex: girl", "Weight: 8 kg (15 February 2026)", "weight against the WHO percentiles", "Age (months)",
                         "Ema Nováková: measurements (4)", "Value / name", "first smile", "3.2 kg", "1 August 2025"] {
            #expect(english.contains(expected), "the English PDF lacks \(expected):\n\(english)")
        }
        #expect(!english.contains("Hmotnost") && !english.contains("Datum"), "\(english)")
        #expect(try await pdfText(["childId": .string(id), "format": "pdf", "language": "en"]) == english)

        let german = await refusal { try await host.call("export", ["childId": .string(id), "format": "pdf", "language": "de"]) }
        #expect(german?.code == .invalidInput && german?.field == "$.language", "\(String(describing: german))")
        // The CSV stays a machine format: English column keys and ISO dates, whatever the language.
        let csv = try #require(try await host.call("export", ["childId": .string(id), "format": "csv", "language": "cs"])["csv"]?.stringValue)
        #expect(csv.hasPrefix("date,type,kind,name,value,note,endDate,author,id\r\n") && csv.contains("2025-06-15,measurement,weight,"))
        await host.stop()
    }

    /// The e-mail's subject and text in each language: the child's birth date and the moment of the
    /// export as the reader writes them, the sections by name, the attachment's ASCII name.
    @Test func theExportMailIsWrittenInTheAskedLanguage() throws {
        let mail = { (language: ExportWords.Language) in
            Diary.exportMail(words: ExportWords(language), childName: "Ema Nováková", birthDate: "2025-06-15", exportedAt: "2026-03-02T09:05",
                             sections: ["measurements", "healthProblems"], fileExtension: "pdf", fileName: "Ema-Novakova-diary.pdf")
        }
        let czech = mail(.cs)
        #expect(czech.subject == "Ema Nováková: deník miminka")
        #expect(czech.text.contains("Ema Nováková (datum narození 15. 6. 2025), export ze dne 2. 3. 2026 09:05: měření, nemoci a úrazy."), "\(czech.text)")
        #expect(czech.text.contains("V příloze je soubor PDF (Ema-Novakova-diary.pdf)."), "\(czech.text)")
        let slovak = mail(.sk)
        #expect(slovak.subject == "Ema Nováková: denník bábätka")
        #expect(slovak.text.contains("(dátum narodenia 15. 6. 2025), export zo dňa 2. 3. 2026 09:05: merania, choroby a úrazy."), "\(slovak.text)")
        let english = mail(.en)
        #expect(english.subject == "Ema Nováková: baby diary")
        #expect(english.text.contains("The baby diary of Ema Nováková (born 15 June 2025), exported 2 March 2026 09:05: measurements, health problems."),
                "\(english.text)")
        #expect(english.text.contains("The PDF is attached (Ema-Novakova-diary.pdf)."))
        #expect(try ExportWords(code: nil).language == .en)
        #expect(throws: PluginError.self) { try ExportWords(code: "de") }
    }

    /// Dates and numbers are formatted by hand, the same on every machine.
    @Test func datesAndNumbersAreWrittenAsTheReaderWritesThem() {
        let cs = ExportWords(.cs), sk = ExportWords(.sk), en = ExportWords(.en)
        #expect(cs.date("2026-03-02") == "2. 3. 2026")
        #expect(sk.date("2026-03-02") == "2. 3. 2026")
        #expect(en.date("2026-03-02") == "2 March 2026")
        #expect(cs.date("2026-03-02T08:05") == "2. 3. 2026 08:05")
        #expect(en.date("2026-03-02T08:00:00Z") == "2 March 2026 08:00")
        #expect(cs.date("2024-05") == "květen 2024")
        #expect(sk.date("2024-05") == "máj 2024")
        #expect(en.date("2024-05") == "May 2024")
        #expect(cs.date("") == "")
        #expect(cs.date("sometime") == "sometime")
        #expect(cs.shortDate("2026-03-01T19:30") == "1. 3. 19:30")
        #expect(en.shortDate("2026-03-01T19:30") == "1 Mar 19:30")
        #expect(en.shortDate("2026-12-24") == "24 Dec")
        #expect(cs.quantity(3.45, unit: "kg") == "3,45 kg")
        #expect(sk.quantity(3.45, unit: "kg") == "3,45 kg")
        #expect(en.quantity(3.45, unit: "kg") == "3.45 kg")
        #expect(cs.number(8) == "8")
        #expect(cs.number(37.5) == "37,5")
        #expect(cs.number(3.2049) == "3,205")
        #expect(en.number(0.0004) == "0")
        #expect(en.number(-1.5) == "-1.5")
        #expect(cs.feverThreshold(celsius: 37.5) == "37,5 °C zvýšená teplota")
        #expect(en.feverThreshold(celsius: 39) == "39 °C high fever")
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
