import Foundation

/// A small PDF 1.4 writer: pages of text in the standard Helvetica fonts, lines, rectangles, tables
/// and growth charts as vector graphics; no fonts embedded, no images, streams uncompressed.
///
/// ```swift
/// let pdf = PDFDocument(title: "Eliška")
///     .page { page in page.text("Růstový graf", x: 56, y: 72, font: .helveticaBold, size: 18) }
///     .data()
/// ```
public struct PDFDocument: Sendable {
    /// The size of pages added from now on.
    public var pageSize: PDFPageSize
    /// The document's title (Info dictionary).
    public var title: String?
    /// The document's author (Info dictionary).
    public var author: String?
    /// The creation date written to the Info dictionary; none by default, so the same content gives
    /// the same bytes.
    public var creationDate: Date?
    /// The pages drawn so far.
    public private(set) var pages: [PDFPage] = []

    /// An empty document.
    public init(pageSize: PDFPageSize = .a4, title: String? = nil, author: String? = nil, creationDate: Date? = nil) {
        self.pageSize = pageSize
        self.title = title
        self.author = author
        self.creationDate = creationDate
    }

    /// This document with one more page, drawn by `draw`.
    public func page(_ draw: (inout PDFPage) throws -> Void) rethrows -> PDFDocument {
        var copy = self
        try copy.addPage(draw)
        return copy
    }

    /// Adds a page drawn by `draw`.
    public mutating func addPage(_ draw: (inout PDFPage) throws -> Void) rethrows {
        var page = PDFPage(size: pageSize)
        try draw(&page)
        pages.append(page)
    }

    /// The file: header, objects, cross-reference table and trailer. A document without pages gets
    /// one blank page (a PDF must have one).
    public func data() -> Data {
        var file = PDFFileWriter()
        let pages = self.pages.isEmpty ? [PDFPage(size: pageSize)] : self.pages
        let fonts = pages.reduce(into: Set<PDFFontResource>()) { $0.formUnion($1.fonts) }.sorted()

        // Object numbers: 1 catalog, 2 page tree, 3 info, 4 shared resources, then fonts, then
        // each page followed by its content stream.
        let firstFont = 5
        let firstPage = firstFont + fonts.count
        let pageNumbers = pages.indices.map { firstPage + 2 * $0 }

        file.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        file.object(2, "<< /Type /Pages /Kids [\(pageNumbers.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>")
        file.object(3, infoDictionary())
        let fontEntries = fonts.enumerated().map { "/\($1.name) \(firstFont + $0) 0 R" }.joined(separator: " ")
        file.object(4, "<< /ProcSet [/PDF /Text] /Font << \(fontEntries) >> >>")
        for (offset, font) in fonts.enumerated() {
            file.object(firstFont + offset, PDFFontDictionary.object(font))
        }
        for (page, number) in zip(pages, pageNumbers) {
            let box = "[0 0 \(PDFLiteral.number(page.size.width)) \(PDFLiteral.number(page.size.height))]"
            file.object(number, "<< /Type /Page /Parent 2 0 R /MediaBox \(box) /Resources 4 0 R /Contents \(number + 1) 0 R >>")
            file.stream(number + 1, page.content)
        }
        return file.finish(root: 1, info: 3)
    }

    private func infoDictionary() -> String {
        var entries = ["/Producer \(PDFLiteral.textString("Tessera baby diary"))"]
        if let title { entries.append("/Title \(PDFLiteral.textString(title))") }
        if let author { entries.append("/Author \(PDFLiteral.textString(author))") }
        if let creationDate { entries.append("/CreationDate (\(Self.pdfDate(creationDate)))") }
        return "<< " + entries.joined(separator: " ") + " >>"
    }

    /// PDF's date syntax, in UTC: D:YYYYMMDDHHmmSSZ.
    static func pdfDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "D:%04d%02d%02d%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }
}

/// Writes numbered objects and remembers where each starts, for the cross-reference table.
struct PDFFileWriter {
    private var bytes = Data()
    private var offsets: [Int: Int] = [:]

    init() {
        // The second line's bytes above 127 tell transfer tools that the file is binary.
        bytes.append(contentsOf: Array("%PDF-1.4\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
    }

    mutating func object(_ number: Int, _ body: String) {
        offsets[number] = bytes.count
        bytes.append(contentsOf: Array("\(number) 0 obj\n\(body)\nendobj\n".utf8))
    }

    mutating func stream(_ number: Int, _ content: [UInt8]) {
        offsets[number] = bytes.count
        bytes.append(contentsOf: Array("\(number) 0 obj\n<< /Length \(content.count) >>\nstream\n".utf8))
        bytes.append(contentsOf: content)
        bytes.append(contentsOf: Array("\nendstream\nendobj\n".utf8))
    }

    /// The cross-reference table (one 20-byte entry per object, object 0 the head of the free
    /// list), the trailer, and the offset of the table.
    mutating func finish(root: Int, info: Int) -> Data {
        let size = (offsets.keys.max() ?? 0) + 1
        let xref = bytes.count
        var table = "xref\n0 \(size)\n0000000000 65535 f\r\n"
        for number in 1..<size {
            guard let offset = offsets[number] else { preconditionFailure("object \(number) was never written") }
            table += String(format: "%010d 00000 n\r\n", offset)
        }
        table += "trailer\n<< /Size \(size) /Root \(root) 0 R /Info \(info) 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        bytes.append(contentsOf: Array(table.utf8))
        return bytes
    }
}

/// The font dictionaries: a standard face, in WinAnsi or in WinAnsi with the supplement's glyphs.
enum PDFFontDictionary {
    static func object(_ resource: PDFFontResource) -> String {
        let first: Int, widths: [UInt16], encoding: String
        switch resource.encoding {
        case .winAnsi:
            first = 32
            widths = (32...255).map { resource.font.glyphWidth(.winAnsi, UInt8($0)) }
            encoding = "/WinAnsiEncoding"
        case .supplement:
            first = Int(HelveticaMetrics.supplementFirstCode)
            widths = HelveticaMetrics.supplement.map { resource.font.isBold ? $0.bold : $0.regular }
            let names = HelveticaMetrics.supplement.map { "/" + $0.glyph }.joined(separator: " ")
            encoding = "<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [\(first) \(names)] >>"
        }
        let widthList = widths.map(String.init).joined(separator: " ")
        return "<< /Type /Font /Subtype /Type1 /BaseFont /\(resource.font.rawValue) /Encoding \(encoding) "
            + "/FirstChar \(first) /LastChar \(first + widths.count - 1) /Widths [\(widthList)] >>"
    }
}
