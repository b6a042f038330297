/// A simple table: a header row and rows of text cells, each column a fixed width; cells wrap.
public struct PDFTable: Sendable {
    /// One column: its heading, width in points and alignment.
    public struct Column: Sendable {
        /// The heading.
        public var title: String
        /// The width in points.
        public var width: Double
        /// How cells sit in the column.
        public var alignment: PDFTextAlignment

        /// A column `width` points wide.
        public init(_ title: String, width: Double, alignment: PDFTextAlignment = .left) {
            self.title = title
            self.width = width
            self.alignment = alignment
        }
    }

    /// Where a table drawn on a page ended.
    public struct Placement: Sendable, Equatable {
        /// The first row not drawn (`rows.count` when all were).
        public let nextRow: Int
        /// The y just below the table.
        public let bottom: Double
    }

    /// The columns.
    public var columns: [Column]
    /// The rows: one string per column (missing cells are empty, extra ones ignored).
    public var rows: [[String]]
    /// The text size of cells and headings.
    public var fontSize: Double
    /// Space around a cell's text.
    public var padding: Double

    /// A table of `rows` under `columns`.
    public init(columns: [Column], rows: [[String]], fontSize: Double = 9, padding: Double = 3) {
        self.columns = columns
        self.rows = rows
        self.fontSize = fontSize
        self.padding = padding
    }

    var width: Double { columns.reduce(0) { $0 + $1.width } }
    var lineHeight: Double { fontSize * 1.2 }

    func cellLines(_ row: [String], font: PDFFont) -> [[String]] {
        columns.enumerated().map { index, column in
            let text = index < row.count ? row[index] : ""
            return PDFTextWrapping.lines(text, width: column.width - 2 * padding, font: font, size: fontSize)
        }
    }

    func height(of lines: [[String]]) -> Double {
        Double(lines.map(\.count).max() ?? 1) * lineHeight + 2 * padding
    }
}

extension PDFPage {
    /// Draws `table`'s header and then its rows from `startRow`, top-left at (`x`, `y`), stopping
    /// before a row would cross `bottom` (default: 40 points above the page's bottom edge).
    @discardableResult
    public mutating func table(_ table: PDFTable, x: Double, y: Double, from startRow: Int = 0, bottom: Double? = nil) -> PDFTable.Placement {
        let limit = bottom ?? size.height - 40
        var top = drawRow(table, table.columns.map(\.title), x: x, y: y, font: .helveticaBold, background: .gray(0.88))
        var next = startRow
        while next < table.rows.count {
            let lines = table.cellLines(table.rows[next], font: .helvetica)
            if top + table.height(of: lines) > limit, next > startRow { break }
            top = drawRow(table, table.rows[next], x: x, y: top, font: .helvetica, background: nil)
            next += 1
        }
        return PDFTable.Placement(nextRow: next, bottom: top)
    }

    private mutating func drawRow(_ table: PDFTable, _ cells: [String], x: Double, y: Double, font: PDFFont, background: PDFColor?) -> Double {
        let lines = table.cellLines(cells, font: font)
        let height = table.height(of: lines)
        rectangle(PDFRect(x: x, y: y, width: table.width, height: height), fill: background, stroke: .gray(0.5), lineWidth: 0.5)
        var left = x
        for (column, cellLines) in zip(table.columns, lines) {
            if left > x { line(from: PDFPoint(x: left, y: y), to: PDFPoint(x: left, y: y + height), width: 0.5, color: .gray(0.5)) }
            let anchor = switch column.alignment {
            case .left: left + table.padding
            case .center: left + column.width / 2
            case .right: left + column.width - table.padding
            }
            for (index, text) in cellLines.enumerated() {
                let baseline = y + table.padding + Double(index) * table.lineHeight + table.fontSize * 0.9
                self.text(text, x: anchor, y: baseline, font: font, size: table.fontSize, alignment: column.alignment)
            }
            left += column.width
        }
        return y + height
    }
}

extension PDFDocument {
    /// Adds `table` on as many new pages as it needs, its header repeated on each; `heading`, when
    /// given, is written above it on the first page.
    public mutating func addTable(_ table: PDFTable, heading: String? = nil, margin: Double = 56) {
        var next = 0
        repeat {
            addPage { page in
                var top = margin
                if let heading, next == 0 {
                    page.text(heading, x: margin, y: top + 14, font: .helveticaBold, size: 14)
                    top += 26
                }
                next = page.table(table, x: margin, y: top, from: next, bottom: page.size.height - margin).nextRow
            }
        } while next < table.rows.count
    }
}
