import Foundation
import Testing
@testable import TesseraBaby
import TesseraTestFixtures

/// The PDF writer's file structure, text encoding and drawing, checked with poppler: `pdftotext`
/// must get the text back and `pdftoppm` must render the pages (the chart is checked pixel by pixel).
@Suite struct PDFDocumentTests {
    static let czech = "Příliš žluťoučký kůň úpěl ďábelské ódy"
    static let slovak = "Ľúbostný ťah ŕ ĺ ô ä"

    @Test func theCrossReferenceTablePointsAtEveryObject() throws {
        let data = PDFDocument(title: "Eliška").page { $0.text("Ahoj", x: 72, y: 72) }.page { $0.text("Čau", x: 72, y: 72) }.data()
        let bytes = [UInt8](data)
        #expect(data.starts(with: Array("%PDF-1.4\n".utf8)))
        #expect(String(decoding: bytes.suffix(6), as: UTF8.self) == "%%EOF\n")
        let tail = String(decoding: bytes.suffix(200), as: UTF8.self)
        let startxref = try #require(tail.components(separatedBy: "startxref\n").last?.split(separator: "\n").first)
        let xrefOffset = try #require(Int(startxref))
        let xref = String(decoding: bytes[xrefOffset...], as: UTF8.self)
        #expect(xref.hasPrefix("xref\n0 "))
        // Split on LF bytes: in a Swift String, CR LF is one Character and would not split at "\n".
        let lines = Array(xref.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let count = try #require(Int(lines[1].split(separator: " ")[1]))
        #expect(xref.contains("/Size \(count) "))
        #expect(lines[2] == "0000000000 65535 f\r")
        for number in 1..<count {
            let entry = lines[2 + number]
            #expect(entry.utf8.count == 19 && entry.hasSuffix(" 00000 n\r"))  // 20 bytes with its LF
            let offset = try #require(Int(entry.prefix(10)))
            #expect(String(decoding: bytes[offset..<offset + 12], as: UTF8.self).hasPrefix("\(number) 0 obj\n"), "object \(number)")
        }
        // Each content stream's /Length is its byte count: "endstream" follows exactly there.
        var searchFrom = 0
        while let range = data.range(of: Data("/Length ".utf8), in: searchFrom..<data.count) {
            let digits = bytes[range.upperBound...].prefix { $0 >= 0x30 && $0 <= 0x39 }
            let length = try #require(Int(String(decoding: digits, as: UTF8.self)))
            let start = try #require(data.range(of: Data("stream\n".utf8), in: range.upperBound..<data.count)).upperBound
            #expect(String(decoding: bytes[(start + length)..<(start + length + 10)], as: UTF8.self) == "\nendstream")
            searchFrom = start
        }
    }

    @Test(.needs("pdftotext")) func czechAndSlovakTextComesBackFromPdftotext() async throws {
        let data = PDFDocument()
            .page { page in
                page.text(Self.czech, x: 56, y: 80, font: .helveticaBold, size: 14)
                page.text(Self.slovak, x: 56, y: 110)
                page.text("Cena 120 € – „uvozovky“ (závorky) \\ zpětné lomítko", x: 56, y: 140, font: .helveticaOblique)
                page.text("Fallback: ǎ Ж", x: 56, y: 170, font: .helveticaBoldOblique)
            }
            .data()
        let text = try await Poppler.text(of: data)
        #expect(text.contains(Self.czech))
        #expect(text.contains(Self.slovak))
        #expect(text.contains("Cena 120 € – „uvozovky“ (závorky) \\ zpětné lomítko"))
        #expect(text.contains("Fallback: a ?"))
    }

    @Test(.needs("pdftotext")) func wrappedTextAndTablesSpanPagesWithTheirHeader() async throws {
        var document = PDFDocument()
        let rows = (1...80).map { ["\($0)", "2026-01-\(String(format: "%02d", $0 % 28 + 1))", "Poznámka č. \($0): teplota, léky a návštěva lékaře"] }
        document.addTable(PDFTable(columns: [.init("Č.", width: 30, alignment: .right), .init("Datum", width: 80), .init("Poznámka", width: 160)], rows: rows),
                          heading: "Teploty a léky")
        #expect(document.pages.count > 1)
        let data = document.data()
        for page in 1...document.pages.count {
            #expect(try await Poppler.text(of: data, page: page).contains("Poznámka"), "page \(page) repeats the header")
        }
        let text = try await Poppler.text(of: data)
        #expect(text.contains("Teploty a léky"))
        for row in [1, 40, 80] { #expect(text.contains("Poznámka č. \(row):"), "row \(row)") }

        let block = PDFDocument().page { page in
            let next = page.textBlock(String(repeating: "slovo ", count: 60) + "\nkonec", x: 56, y: 80, width: 200)
            #expect(next > 80 + 5 * 11)  // more than five lines at 11 points
        }
        #expect(try await Poppler.text(of: block.data()).contains("konec"))
    }

    @Test(.needs("pdftotext", "pdftoppm")) func theGrowthChartDrawsCurvesAndMeasurementsWherePdftoppmShowsThem() async throws {
        let measurements: [PDFGrowthChart.Measurement] = [.init(x: 0, value: 3.4), .init(x: 92, value: 6.5), .init(x: 183, value: 7.8), .init(x: 365, value: 9.9)]
        let chart = try PDFGrowthChart(indicator: .weightForAge, sex: .boy, range: 0...730, measurements: measurements,
                                       title: "Hmotnost podle věku, chlapci", xLabel: "Věk (měsíce)", yLabel: "Hmotnost (kg)")
        let frame = PDFRect(x: 56, y: 100, width: 480, height: 320)
        let data = PDFDocument().page { $0.growthChart(chart, in: frame) }.data()

        let text = try await Poppler.text(of: data)
        for label in ["Hmotnost podle věku, chlapci", "Věk (měsíce)", "Hmotnost (kg)", "P3", "P50", "P97", "12"] {
            #expect(text.contains(label), "\(label)")
        }
        #expect(try await Poppler.renderPNG(data).starts(with: [0x89, 0x50, 0x4E, 0x47]))

        // Where should the curves be? Read the axes from the rendering itself, not from the
        // writer's layout: the x ticks' labels are centred on their grid lines, and each y label
        // sits beside a horizontal grid line found in the image. At 72 dpi a pixel is a point.
        let image = try await Poppler.renderPPM(data)
        let axes = try RenderedAxes(words: try await Poppler.words(of: data), image: image, plotLeft: frame.x + 44)
        for day in [61.0, 183, 365, 548, 700] {
            let median = try GrowthStandard.parameters(.weightForAge, sex: .boy, at: day).m
            let p97 = try GrowthStandard.value(atPercentile: 97, indicator: .weightForAge, sex: .boy, at: day)
            let p3 = try GrowthStandard.value(atPercentile: 3, indicator: .weightForAge, sex: .boy, at: day)
            #expect(image.has(near: axes.point(month: day / 30.4375, value: median), Pixel.isGreen), "median at day \(day)")
            #expect(image.has(near: axes.point(month: day / 30.4375, value: p97), Pixel.isRed), "P97 at day \(day)")
            #expect(image.has(near: axes.point(month: day / 30.4375, value: p3), Pixel.isRed), "P3 at day \(day)")
            #expect(!image.has(near: axes.point(month: day / 30.4375, value: p97), Pixel.isGreen), "no median line at P97, day \(day)")
        }
        for measurement in measurements {
            #expect(image.has(near: axes.point(month: measurement.x / 30.4375, value: measurement.value), Pixel.isBlue), "point at day \(measurement.x)")
        }
    }

    @Test(.needs("pdftoppm")) func anEmptyDocumentIsOneBlankPage() async throws {
        let data = PDFDocument().data()
        #expect(try await Poppler.renderPNG(data).count > 100)
        #expect(String(decoding: data, as: UTF8.self).contains("/Count 1"))
    }

    @Test func theSameContentGivesTheSameBytesAndADateOnlyWhenAsked() {
        let draw: (inout PDFPage) -> Void = { $0.text("Očkování", x: 56, y: 72); $0.rectangle(PDFRect(x: 56, y: 80, width: 100, height: 20)) }
        #expect(PDFDocument(title: "Deník").page(draw).data() == PDFDocument(title: "Deník").page(draw).data())
        #expect(!String(decoding: PDFDocument().page(draw).data(), as: UTF8.self).contains("/CreationDate"))
        let dated = PDFDocument(creationDate: Date(timeIntervalSince1970: 1_767_225_600)).page(draw).data()
        #expect(String(decoding: dated, as: UTF8.self).contains("/CreationDate (D:20260101000000Z)"))
    }

    @Test func textIsEncodedInWinAnsiWhereItCanBeAndInTheSupplementOtherwise() {
        #expect(PDFTextEncoding.runs("Šíp") == [.init(encoding: .winAnsi, bytes: [0x8A, 0xED, 0x70])])
        #expect(PDFTextEncoding.runs("Čaj") == [.init(encoding: .supplement, bytes: [0x21]), .init(encoding: .winAnsi, bytes: [0x61, 0x6A])])
        #expect(PDFTextEncoding.runs("ů€") == [.init(encoding: .supplement, bytes: [0x2E]), .init(encoding: .winAnsi, bytes: [0x80])])
        #expect(PDFTextEncoding.runs("ǎЖ\t−") == [.init(encoding: .winAnsi, bytes: [0x61, 0x3F, 0x20, 0x2D])])
        // Helvetica "Hello" is 722 + 556 + 222 + 222 + 556 = 2278 units: 22.78 pt at 10 pt.
        #expect(abs(PDFFont.helvetica.width(of: "Hello", size: 10) - 22.78) < 1e-9)
        #expect(abs(PDFFont.helveticaBold.width(of: "ř", size: 10) - 3.89) < 1e-9)
    }

    @Test func literalsEscapeWhatPDFSyntaxReserves() {
        #expect(PDFLiteral.string(Array("a(b)c\\".utf8)) == "(a\\(b\\)c\\\\)")
        #expect(PDFLiteral.string([0x8A, 0x0A, 0x41]) == "(\\212\\012A)")
        #expect(PDFLiteral.number(1.0) == "1" && PDFLiteral.number(-0.0001) == "0" && PDFLiteral.number(841.89) == "841.89")
        #expect(PDFLiteral.textString("Ř") == "<FEFF0158>")
        #expect(PDFDocument.pdfDate(Date(timeIntervalSince1970: 1_767_225_600)) == "D:20260101000000Z")
    }
}

/// poppler-utils, run as processes (`scripts/setup.sh test` installs them).
enum Poppler {
    static func text(of pdf: Data, page: Int? = nil) async throws -> String {
        let pages = page.map { ["-f", "\($0)", "-l", "\($0)"] } ?? []
        return String(decoding: try await run("pdftotext", pages + ["-enc", "UTF-8"], pdf: pdf, output: "-"), as: UTF8.self)
    }

    /// The first page's words with their boxes (points from the top-left corner), from `pdftotext -bbox`.
    static func words(of pdf: Data) async throws -> [(text: String, minX: Double, minY: Double, maxX: Double, maxY: Double)] {
        let html = String(decoding: try await run("pdftotext", ["-bbox", "-f", "1", "-l", "1"], pdf: pdf, output: "-"), as: UTF8.self)
        let pattern = try NSRegularExpression(pattern: #"<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>"#)
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { match in
            let field = { (i: Int) in String(html[Range(match.range(at: i), in: html)!]) }
            return (field(5), Double(field(1))!, Double(field(2))!, Double(field(3))!, Double(field(4))!)
        }
    }

    static func renderPNG(_ pdf: Data) async throws -> Data {
        try await run("pdftoppm", ["-png", "-r", "50", "-singlefile"], pdf: pdf, output: nil, outputSuffix: ".png")
    }

    /// The first page at 72 dpi as RGB pixels.
    static func renderPPM(_ pdf: Data) async throws -> PixelImage {
        try PixelImage(ppm: try await run("pdftoppm", ["-r", "72", "-singlefile"], pdf: pdf, output: nil, outputSuffix: ".ppm"))
    }

    /// Runs `tool` on the PDF written to a temporary file; returns its stdout, or the file it wrote
    /// at `<root><outputSuffix>` when `output` is nil. The tool runs through ``runDetached``: a wait
    /// for it on one of Swift concurrency's two threads would stall the other tests meanwhile.
    private static func run(_ tool: String, _ arguments: [String], pdf: Data, output: String?, outputSuffix: String = "") async throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("babydocs-pdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.pdf"), root = directory.appendingPathComponent("out").path
        try pdf.write(to: input)
        let result = try await runDetached("/usr/bin/\(tool)", arguments + [input.path, output ?? root])
        guard result.status == 0, result.stderr.isEmpty else {
            throw PopplerError(message: "\(tool) exited \(result.status): \(result.stderr)")
        }
        return output == nil ? try Data(contentsOf: URL(fileURLWithPath: root + outputSuffix)) : Data(result.stdout.utf8)
    }

    struct PopplerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// A chart's axes as a reader sees them on the rendered page: numeric labels left of the plot are
/// the value axis (each matched to the horizontal line beside it), the other numeric labels the
/// month axis (each centred on its tick).
struct RenderedAxes {
    let months: [(value: Double, x: Double)]
    let values: [(value: Double, y: Double)]

    init(words: [(text: String, minX: Double, minY: Double, maxX: Double, maxY: Double)], image: PixelImage, plotLeft: Double) throws {
        let numbers = words.compactMap { word in Double(word.text).map { (value: $0, word: word) } }
        months = numbers.filter { $0.word.maxX > plotLeft - 2 }.map { ($0.value, ($0.word.minX + $0.word.maxX) / 2) }
        let lines = image.horizontalLines(from: Int(plotLeft) + 2, to: Int(plotLeft) + 300)
        values = try numbers.filter { $0.word.maxX <= plotLeft - 2 }.map { label in
            let centre = (label.word.minY + label.word.maxY) / 2
            guard let line = lines.min(by: { abs($0 - centre) < abs($1 - centre) }), abs(line - centre) < 6 else {
                throw Poppler.PopplerError(message: "no grid line beside the label \(label.value)")
            }
            return (label.value, line)
        }
        guard months.count >= 2, values.count >= 2 else { throw Poppler.PopplerError(message: "too few axis labels: \(months) \(values)") }
    }

    /// The page point of `value` at `month`, interpolated between the outermost labels.
    func point(month: Double, value: Double) -> PDFPoint {
        PDFPoint(x: Self.interpolate(months.map { ($0.value, $0.x) }, month), y: Self.interpolate(values.map { ($0.value, $0.y) }, value))
    }

    private static func interpolate(_ marks: [(Double, Double)], _ v: Double) -> Double {
        let a = marks.min { $0.0 < $1.0 }!, b = marks.max { $0.0 < $1.0 }!
        return a.1 + (v - a.0) / (b.0 - a.0) * (b.1 - a.1)
    }
}

/// An RGB pixel of a rendered page.
struct Pixel {
    let r: Int, g: Int, b: Int
    static func isGreen(_ p: Pixel) -> Bool { p.g > p.r + 40 && p.g > p.b + 30 }
    static func isRed(_ p: Pixel) -> Bool { p.r > p.g + 80 && p.r > p.b + 80 }
    static func isBlue(_ p: Pixel) -> Bool { p.b > p.r + 80 && p.b > p.g + 60 }
}

/// A binary PPM (P6) image as pdftoppm writes it.
struct PixelImage: CustomStringConvertible {
    let width: Int, height: Int
    let pixels: [UInt8]

    /// Short, so that a failed expectation does not print every pixel.
    var description: String { "\(width)×\(height) image" }

    init(ppm data: Data) throws {
        let bytes = [UInt8](data)
        var fields: [String] = [], index = 0, field = ""
        while fields.count < 4, index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                if !field.isEmpty { fields.append(field); field = "" }
            } else {
                field.append(Character(UnicodeScalar(byte)))
            }
        }
        guard fields.count == 4, fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]), fields[3] == "255",
              bytes.count - index == width * height * 3 else { throw Poppler.PopplerError(message: "not a P6 PPM: \(fields)") }
        self.width = width
        self.height = height
        pixels = Array(bytes[index...])
    }

    func pixel(_ x: Int, _ y: Int) -> Pixel? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let i = (y * width + x) * 3
        return Pixel(r: Int(pixels[i]), g: Int(pixels[i + 1]), b: Int(pixels[i + 2]))
    }

    /// The rows (their centres, for a line spread over two rows) where a grey or black line spans
    /// more than 40 % of the columns `x0..<x1` (curves cross them): grid lines and the frame.
    func horizontalLines(from x0: Int, to x1: Int) -> [Double] {
        let lineRows = (0..<height).filter { y in
            let neutral = (x0..<x1).filter { x in
                guard let p = pixel(x, y) else { return false }
                return p.r < 250 && abs(p.r - p.g) < 16 && abs(p.g - p.b) < 16
            }
            return Double(neutral.count) > 0.4 * Double(x1 - x0)
        }
        var centres: [Double] = [], run: [Int] = []
        for y in lineRows {
            if let last = run.last, y != last + 1 { centres.append(Double(run.reduce(0, +)) / Double(run.count)); run = [] }
            run.append(y)
        }
        if !run.isEmpty { centres.append(Double(run.reduce(0, +)) / Double(run.count)) }
        return centres.map { $0 + 0.5 }  // a pixel row y covers y..<y+1
    }

    /// Whether a pixel within 2 pixels of `point` passes `test`.
    func has(near point: PDFPoint, _ test: (Pixel) -> Bool) -> Bool {
        let cx = Int(point.x.rounded(.down)), cy = Int(point.y.rounded(.down))
        for dy in -2...2 { for dx in -2...2 { if let p = pixel(cx + dx, cy + dy), test(p) { return true } } }
        return false
    }
}
