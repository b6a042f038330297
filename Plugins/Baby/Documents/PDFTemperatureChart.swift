import Foundation

/// The temperature chart of one illness or injury (UC24): its readings over time as points joined
/// by a line, with the fever thresholds drawn across as dashed lines and named at their right end.
///
/// ```swift
/// let chart = PDFTemperatureChart(title: "Angína: temperatures", readings: [
///     .init(minutes: 0, celsius: 38.6, label: "03-01 19:30"), .init(minutes: 720, celsius: 37.8, label: "03-02 07:30")],
///     thresholds: [.init(celsius: 38, label: "38 °C fever")])
/// page.temperatureChart(chart, in: PDFRect(x: 56, y: 72, width: 483, height: 300))
/// ```
public struct PDFTemperatureChart: Sendable {
    /// One reading: when (minutes from any fixed start, so readings keep their spacing), the
    /// temperature, and the label its time gets under the axis.
    public struct Reading: Sendable, Equatable {
        /// Minutes from a fixed start.
        public var minutes: Double
        /// The temperature in °C.
        public var celsius: Double
        /// Its time as written under the axis.
        public var label: String

        /// A reading at `minutes` of `celsius`, labelled `label`.
        public init(minutes: Double, celsius: Double, label: String) {
            self.minutes = minutes
            self.celsius = celsius
            self.label = label
        }
    }

    /// A horizontal line at a temperature that starts a class (raised, fever, …).
    public struct Threshold: Sendable, Equatable {
        /// Where the line is, in °C.
        public var celsius: Double
        /// Its name, written at the line's right end.
        public var label: String

        /// A threshold at `celsius` named `label`.
        public init(celsius: Double, label: String) {
            self.celsius = celsius
            self.label = label
        }
    }

    /// The title above the chart.
    public var title: String
    /// The readings, in any order (drawn in time order).
    public var readings: [Reading]
    /// The threshold lines.
    public var thresholds: [Threshold]
    /// The decimal separator of the °C axis's numbers: "." by default, "," for a Czech or Slovak reader.
    public var decimalSeparator = "."

    /// A chart of `readings` with `thresholds`.
    public init(title: String, readings: [Reading], thresholds: [Threshold]) {
        self.title = title
        self.readings = readings
        self.thresholds = thresholds
    }

    /// The readings in time order.
    var ordered: [Reading] { readings.sorted { $0.minutes < $1.minutes } }

    /// The °C shown: every reading and threshold, with half a degree around them, in whole halves.
    var valueRange: ClosedRange<Double> {
        let values = readings.map(\.celsius) + thresholds.map(\.celsius)
        let low = ((values.min() ?? 36) - 0.5) * 2, high = ((values.max() ?? 40) + 0.5) * 2
        return low.rounded(.down) / 2...high.rounded(.up) / 2
    }
}

extension PDFPage {
    /// Draws `chart` inside `frame`: the title, a °C axis with a grid every half degree, the
    /// thresholds as dashed red lines with their names, and the readings joined in time order
    /// (a single reading sits in the middle). Each reading's time is written under it when there is
    /// room beside the previous label.
    public mutating func temperatureChart(_ chart: PDFTemperatureChart, in frame: PDFRect) {
        let plot = PDFRect(x: frame.x + 40, y: frame.y + 24, width: frame.width - 40 - 96, height: frame.height - 24 - 30)
        let range = chart.valueRange, readings = chart.ordered
        let first = readings.first?.minutes ?? 0, last = readings.last?.minutes ?? 0
        let x = { (minutes: Double) in last == first ? plot.x + plot.width / 2 : plot.x + (minutes - first) / (last - first) * plot.width }
        let y = { (celsius: Double) in plot.maxY - (celsius - range.lowerBound) / (range.upperBound - range.lowerBound) * plot.height }
        text(chart.title, x: frame.x + frame.width / 2, y: frame.y + 12, font: .helveticaBold, size: 12, alignment: .center)
        for tick in stride(from: range.lowerBound, through: range.upperBound + 1e-9, by: 0.5) {
            line(from: PDFPoint(x: plot.x, y: y(tick)), to: PDFPoint(x: plot.maxX, y: y(tick)), width: 0.4, color: .gray(0.85))
            text(PDFLiteral.number(tick).replacingOccurrences(of: ".", with: chart.decimalSeparator), x: plot.x - 4, y: y(tick) + 3, size: 8, alignment: .right)
        }
        rectangle(plot, stroke: .black, lineWidth: 0.8)
        let red = PDFColor(red: 0.8, green: 0.15, blue: 0.15)
        for threshold in chart.thresholds where range.contains(threshold.celsius) {
            line(from: PDFPoint(x: plot.x, y: y(threshold.celsius)), to: PDFPoint(x: plot.maxX, y: y(threshold.celsius)), width: 0.9, color: red, dash: [4, 3])
            text(threshold.label, x: plot.maxX + 4, y: y(threshold.celsius) + 3, size: 8, color: red)
        }
        let points = readings.map { PDFPoint(x: x($0.minutes), y: y($0.celsius)) }
        polyline(points, width: 1, color: PDFGrowthChart.measurementColor)
        for point in points { circle(center: point, radius: 2.4, fill: PDFGrowthChart.measurementColor) }
        var labelledUpTo = -Double.infinity  // a time label only where the previous one ends
        for (index, reading) in readings.enumerated() {
            let width = PDFFont.helvetica.width(of: reading.label, size: 7)
            let left = points[index].x - width / 2
            guard left > labelledUpTo + 4 else { continue }
            text(reading.label, x: points[index].x, y: plot.maxY + 11, size: 7, alignment: .center)
            labelledUpTo = left + width
        }
        text("°C", x: frame.x, y: plot.y - 8, size: 9)
    }
}
