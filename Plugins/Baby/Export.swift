import Foundation
import TesseraSDK

/// Export (UC32): the chosen sections of a child's data as JSON (the default), as CSV (one table
/// of every record, which the thesis lacked), or as a PDF with the growth charts (stored with the
/// files capability: the answer names the file, which `export-download` hands to the one who asked,
/// `ExportDownload.swift`). The rendering is `Documents/` (PDF, CSV) and `Growth/` (the WHO curves).
/// The PDF and the e-mail speak the person's language (`language`: cs, sk or en, English when
/// absent) through `ExportWords`; the CSV and JSON are machine formats and stay as they are.
extension Diary {
    static let exportSections = ["profile", "healthCard", "measurements", "milestones", "posts", "healthProblems", "contacts"]

    struct ExportInput: Decodable, Sendable {
        var childId: String
        var sections: [String]?
        var format: String?
        var email: String?
        /// The language of the PDF and the e-mail: cs, sk or en; English when absent.
        var language: String?
    }

    /// The chosen sections of a child's data (owners and parents; §9.8 question 2 keeps guardians
    /// out, as the thesis's server read only the parent DB). With `email` the export is also
    /// mailed there through the hub, as an attachment (`ExportMail.swift`); its format is then
    /// `pdf` unless another is asked for. The PDF and the e-mail are in `language` (English when absent).
    func export(_ input: ExportInput, by principal: String) async throws -> JSONValue {
        try await require(.export, on: input.childId)
        let recipient = try Self.exportRecipient(input.email)
        let words = try ExportWords(code: input.language)
        let format = try Validate.oneOf(input.format ?? (recipient == nil ? "json" : "pdf"), ["json", "csv", "pdf"], field: "format")
        let sections = input.sections ?? Self.exportSections
        for (index, section) in sections.enumerated() { _ = try Validate.oneOf(section, Self.exportSections, field: "sections[\(index)]") }
        if recipient != nil { try requireMail() }
        var answer: [String: JSONValue] = ["childId": .string(input.childId), "generatedAt": .string(stamp()), "format": .string(format)]
        let file: ExportFile
        switch format {
        case "csv":
            let csv = try await exportCSV(childID: input.childId, sections: sections)
            answer["csv"] = .string(csv)
            file = ExportFile(bytes: Array(csv.utf8), mediaType: "text/csv", fileExtension: "csv")
        case "pdf":
            let (pdf, bytes) = try await exportPDF(childID: input.childId, sections: sections, principal: principal, words: words)
            answer["pdf"] = pdf
            file = ExportFile(bytes: bytes, mediaType: "application/pdf", fileExtension: "pdf")
        default:
            let document = JSONValue.object(try await exportDocument(childID: input.childId, sections: sections))
            answer["sections"] = document
            file = ExportFile(bytes: Array(JSONValue.object(answer).serialized().utf8), mediaType: "application/json", fileExtension: "json")
        }
        if let recipient {
            answer["mail"] = try await mailExport(file, to: recipient, childID: input.childId, sections: sections, words: words)
        }
        return .object(answer)
    }

    private func exportDocument(childID: String, sections: [String]) async throws -> [String: JSONValue] {
        var document: [String: JSONValue] = [:]
        let profile = try await childProfile(childID)
        for section in sections {
            switch section {
            case "profile": document["profile"] = profile
            case "healthCard": document["healthCard"] = profile["health"] ?? .null
            case "contacts": document["contacts"] = try await contacts(childID: childID, kind: nil)["contacts"] ?? []
            default:
                document[section] = .array(try await recordsJSON(exportRecords(childID: childID, section: section)))
            }
        }
        return document
    }

    private static func recordType(ofSection section: String) -> RecordType? {
        switch section {
        case "measurements": .measurement
        case "milestones": .milestone
        case "posts": .post
        case "healthProblems": .healthProblem
        default: nil
        }
    }

    private func exportRecords(childID: String, section: String) async throws -> [Row] {
        guard let type = Self.recordType(ofSection: section) else { return [] }
        return try await query("SELECT * FROM records WHERE child_id = ? AND type = ? ORDER BY occurred_at, id",
                               [.text(childID), .text(type.rawValue)])
    }

    /// Every record of the chosen sections as one RFC 4180 table, oldest first.
    private func exportCSV(childID: String, sections: [String]) async throws -> String {
        var rows: [Row] = []
        for section in sections { rows += try await exportRecords(childID: childID, section: section) }
        rows.sort { ($0["occurred_at"].text ?? "", $0["id"].text ?? "") < ($1["occurred_at"].text ?? "", $1["id"].text ?? "") }
        let columns: [(String, String)] = [("date", "occurred_at"), ("type", "type"), ("kind", "kind"), ("name", "name"), ("value", "value"),
                                           ("note", "note"), ("endDate", "ended_at"), ("author", "author_name"), ("id", "id")]
        let table = try CSVTable(header: columns.map(\.0), rows: rows.map { row in
            columns.map { _, column in row[column].real.map { String($0) } ?? row[column].text ?? "" }
        })
        return table.text
    }

    /// A PDF of the profile, the health card, each chosen section as a table, and the growth
    /// charts against the WHO percentiles, in `words`' language; stored as the module's file.
    private func exportPDF(childID: String, sections: [String], principal: String, words: ExportWords) async throws -> (JSONValue, [UInt8]) {
        guard let files else { throw BabyError.unprocessable("exporting a PDF needs the files capability", code: "files_not_granted") }
        let profile = try await childProfile(childID)
        let name = profile["name"]?.stringValue ?? ""
        var pdf = PDFDocument(title: words.documentTitle(childName: name), author: words.author)
        try await addProfilePage(&pdf, profile: profile, words: words)
        if sections.contains("measurements") { try await addGrowthCharts(&pdf, childID: childID, name: name, words: words) }
        if sections.contains("healthProblems") { try await addTemperatureCharts(&pdf, childID: childID, words: words) }
        for section in sections where Self.recordType(ofSection: section) != nil {
            let rows = try await exportRecords(childID: childID, section: section)
            let table = PDFTable(columns: [.init(words.dateColumn, width: 90), .init(words.kindColumn, width: 110),
                                          .init(words.valueColumn, width: 140), .init(words.noteColumn, width: 143)],
                                 rows: rows.map { row in Self.tableRow(row, words: words) })
            pdf.addTable(table, heading: words.sectionHeading(childName: name, section: section, count: rows.count))
        }
        let bytes = Array(pdf.data())
        let stored = try await files.put(bytes, mediaType: "application/pdf")
        try await rememberExport(address: stored.address, childID: childID, principal: principal)
        let fileName = name.filter { $0.isLetter || $0.isNumber || $0 == " " }.replacingOccurrences(of: " ", with: "-")
        return (["address": .string(stored.address), "size": .integer(stored.size), "mediaType": .string(stored.mediaType),
                 "fileName": .string((fileName.isEmpty ? "baby-diary" : fileName + "-diary") + ".pdf"),
                 "download": .string("/v1/plugins/cz.tessera.baby/ops/export-download?address=\(stored.address)")], bytes)
    }

    /// A record as a table row in `words`' language: its date, its kind, its value with the unit
    /// (a measurement's) or its name, and its note.
    private static func tableRow(_ row: Row, words: ExportWords) -> [String] {
        let type = row["type"].text ?? ""
        let unit = type == RecordType.measurement.rawValue ? MeasurementKind(rawValue: row["kind"].text ?? "")?.unit ?? "" : ""
        return [words.date(row["occurred_at"].text ?? ""), words.recordKind(type: type, kind: row["kind"].text),
                row["value"].real.map { words.quantity($0, unit: unit) } ?? row["name"].text ?? "", row["note"].text ?? ""]
    }

    private func addProfilePage(_ pdf: inout PDFDocument, profile: JSONValue, words: ExportWords) async throws {
        let health = profile["health"] ?? .null
        var lines = ["\(words.born): \(words.date(profile["birthDate"]?.stringValue ?? ""))"]
        if let sex = profile["sex"]?.stringValue, !sex.isEmpty { lines.append("\(words.sex): \(words.sexValue(sex))") }
        for kind in MeasurementKind.allCases {
            if let latest = profile["latest"]?[kind.rawValue], let value = latest["value"]?.doubleValue {
                let quantity = words.quantity(value, unit: latest["unit"]?.stringValue ?? kind.unit)
                lines.append("\(words.measurement(kind)): \(quantity) (\(words.date(latest["date"]?.stringValue ?? "")))")
            }
        }
        if let blood = health["bloodGroup"]?.stringValue, !blood.isEmpty { lines.append("\(words.bloodGroup): \(blood)") }
        if let insurer = health["insurer"]?["name"]?.stringValue ?? health["insurer"]?["code"]?.stringValue { lines.append("\(words.insurer): \(insurer)") }
        for (key, label) in [("allergies", words.allergy), ("diseases", words.pastDisease), ("vaccinations", words.vaccination)] {
            for item in health[key]?.arrayValue ?? [] {
                let detail = [item["severity"]?.stringValue.map { words.severity($0) },
                              (item["date"]?.stringValue ?? item["month"]?.stringValue).map { words.date($0) },
                              item["note"]?.stringValue].compactMap { $0 }.filter { !$0.isEmpty }
                lines.append("\(label): \(item["name"]?.stringValue ?? "")\(detail.isEmpty ? "" : " (\(detail.joined(separator: ", ")))")")
            }
        }
        let title = profile["name"]?.stringValue ?? ""
        pdf.addPage { page in
            page.text(title, x: 56, y: 72, font: .helveticaBold, size: 20)
            page.textBlock(lines.joined(separator: "\n"), x: 56, y: 104, width: 483)
        }
    }

    /// One page per WHO indicator the child's measurements give (the three by age of what was
    /// measured, then weight-for-length/height and BMI-for-age from the days with a weight and a
    /// length), against the WHO lines for the child's sex. Points are what the page charts:
    /// lengths corrected for the position, the days the standard cannot score left out.
    private func addGrowthCharts(_ pdf: inout PDFDocument, childID: String, name: String, words: ExportWords) async throws {
        let (birth, sex) = try await growthSubject(childID)
        guard let sex else { return }
        let days = try await growthDays(childID: childID, sex: sex, birth: birth)
        let indicators: [GrowthIndicator] = [.weightForAge, .lengthHeightForAge, .headCircumferenceForAge, .weightForLength, .bmiForAge]
        for indicator in indicators {
            guard let chart = try growthChart(indicator, sex: sex, days: days, name: name, words: words) else { continue }
            pdf.addPage { page in page.growthChart(chart, in: PDFRect(x: 56, y: 72, width: 483, height: 360)) }
        }
    }

    /// One indicator's chart, or nil when no day gives a point for it. Weight-for-length/height is
    /// drawn on the table of the latest day (length before two years, height from then), as the
    /// page draws it; its x axis is the corrected length in cm.
    private func growthChart(_ indicator: GrowthIndicator, sex: GrowthStandard.Sex, days: [GrowthDay], name: String,
                             words: ExportWords) throws -> PDFGrowthChart? {
        let byLength = indicator.axis == .lengthCm
        let points = days.compactMap { day -> PDFGrowthChart.Measurement? in
            guard (0...1856).contains(day.ageDays), let measured = Self.measured(indicator, on: day) else { return nil }
            if byLength { return measured.lengthCm.map { .init(x: $0, value: measured.value) } }
            return .init(x: Double(day.ageDays), value: measured.value)
        }
        guard !points.isEmpty else { return nil }
        let table = byLength ? GrowthIndicator.weightForStature(ageDays: days.last?.ageDays ?? 0) : indicator
        let range: ClosedRange<Double>
        if byLength {
            let bounds = table == .weightForLength ? 45.0...110.0 : 65.0...120.0
            let low = max(bounds.lowerBound, ((points.map(\.x).min() ?? bounds.lowerBound) - 5).rounded(.down))
            let high = min(bounds.upperBound, ((points.map(\.x).max() ?? bounds.lowerBound) + 5).rounded(.up))
            range = low...max(high, low + 1)
        } else {
            range = 0...min(max(points.map(\.x).max() ?? 0, 365), 1856)
        }
        var chart = try PDFGrowthChart(indicator: table, sex: sex, range: range, measurements: points,
                                       title: words.growthChartTitle(childName: name, indicator: indicator),
                                       xLabel: byLength ? words.lengthAxis : words.ageInMonths, yLabel: words.growthAxis(indicator))
        chart.decimalSeparator = words.decimalSeparator
        return chart
    }

    /// The chart's lines: where `Fever`'s classes above normal start, named in `words`' language
    /// ("38 °C fever", "38 °C horečka").
    private static func feverLines(_ words: ExportWords) -> [PDFTemperatureChart.Threshold] {
        Fever.thresholds.map { PDFTemperatureChart.Threshold(celsius: $0.celsius, label: words.feverThreshold(celsius: $0.celsius)) }
    }

    /// UC24: one page per illness or injury with temperatures, the readings against the fever
    /// thresholds (`Fever`: 37.5 raised, 38 fever, 39 high, 40 very high).
    private func addTemperatureCharts(_ pdf: inout PDFDocument, childID: String, words: ExportWords) async throws {
        let problems = try await query("SELECT id, kind, name, occurred_at, ended_at FROM records WHERE child_id = ? AND type = 'health_problem' ORDER BY occurred_at, id",
                                       [.text(childID)])
        for problem in problems {
            let rows = try await query("SELECT occurred_at, value FROM records WHERE problem_id = ? AND type = 'temperature' ORDER BY occurred_at, id",
                                       [.text(problem["id"].text ?? "")])
            let readings = rows.compactMap { row -> PDFTemperatureChart.Reading? in
                guard let celsius = row["value"].real, let at = row["occurred_at"].text else { return nil }
                let moment = at.count == 10 ? at + "T00:00" : at
                guard let instant = try? dates.instant(moment, field: "at") else { return nil }
                return .init(minutes: instant.timeIntervalSince1970 / 60, celsius: celsius, label: words.shortDate(at))
            }
            guard !readings.isEmpty else { continue }
            let ended = problem["ended_at"].text.flatMap { $0.isEmpty ? nil : $0 }
            let title = words.temperaturesTitle(problem: problem["name"].text ?? "", start: problem["occurred_at"].text ?? "", end: ended)
            var chart = PDFTemperatureChart(title: title, readings: readings, thresholds: Self.feverLines(words))
            chart.decimalSeparator = words.decimalSeparator
            pdf.addPage { page in page.temperatureChart(chart, in: PDFRect(x: 56, y: 72, width: 483, height: 320)) }
        }
    }

    /// UC23: a contact as a vCard 4.0 (RFC 6350) to share outside the app (its note in English:
    /// `contact-vcard` has no language).
    func contactVCard(_ id: String) async throws -> JSONValue {
        guard let row = try await query("SELECT * FROM contacts WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("contact", id) }
        let text = { (column: String) in (row[column].text ?? "").trimmingCharacters(in: .whitespaces) }
        let isDoctor = text("kind") == "doctor"
        let card = try VCard(formattedName: text("name"),
                             phones: text("phone").isEmpty ? [] : [.init(text("phone"), types: [.voice])],
                             emails: text("email").isEmpty ? [] : [.init(text("email"))],
                             addresses: text("address").isEmpty ? [] : [.init(street: text("address"))],
                             role: isDoctor && !text("specialization").isEmpty ? text("specialization") : nil,
                             note: isDoctor && !text("office_hours").isEmpty ? "\(ExportWords(.en).officeHours): \(text("office_hours"))" : nil,
                             uid: "urn:uuid:\(id)")
        let fileName = text("name").filter { $0.isLetter || $0.isNumber || $0 == " " }.replacingOccurrences(of: " ", with: "-")
        return ["id": .string(id), "mediaType": "text/vcard", "fileName": .string((fileName.isEmpty ? "contact" : fileName) + ".vcf"),
                "vcard": .string(card.text)]
    }
}
