import Foundation

/// A growth chart: the WHO percentile curves of one indicator and sex over a range, the child's
/// measurements as points joined by a line, axes with ticks and labels, drawn as vector graphics.
///
/// ```swift
/// let chart = try PDFGrowthChart(indicator: .weightForAge, sex: .girl, range: 0...365,
///                                measurements: [.init(x: 0, value: 3.3), .init(x: 92, value: 6.1)])
/// page.growthChart(chart, in: PDFRect(x: 56, y: 120, width: 480, height: 320))
/// ```
public struct PDFGrowthChart: Sendable {
    /// One of the child's measurements: `x` in days of age (or cm for weight-for-length/height).
    public struct Measurement: Sendable, Equatable {
        /// Age in days, or length/height in cm.
        public var x: Double
        /// The measurement in the indicator's unit.
        public var value: Double

        /// A measurement at `x`.
        public init(x: Double, value: Double) {
            self.x = x
            self.value = value
        }
    }

    /// The title above the chart.
    public var title: String
    /// The x axis's label.
    public var xLabel: String
    /// The y axis's label.
    public var yLabel: String
    /// The axis the curves and points are on (age in days, shown in months; or length in cm).
    public var axis: GrowthIndicator.Axis
    /// The x range shown.
    public var range: ClosedRange<Double>
    /// The percentile curves.
    public var curves: [PercentileCurve]
    /// The child's measurements; those outside `range` are left out.
    public var measurements: [Measurement]
    /// The decimal separator of the axes' numbers: "." by default, "," for a Czech or Slovak reader.
    public var decimalSeparator = "."

    /// A chart of the given curves and measurements.
    public init(title: String, xLabel: String, yLabel: String, axis: GrowthIndicator.Axis, range: ClosedRange<Double>,
                curves: [PercentileCurve], measurements: [Measurement]) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.axis = axis
        self.range = range
        self.curves = curves
        self.measurements = measurements
    }

    /// A chart of the WHO's 3rd, 15th, 50th, 85th and 97th percentiles for `indicator` and `sex`
    /// over `range` (days or cm), with English labels unless given.
    /// - Throws: `GrowthStandardError` when `range` leaves the WHO table.
    public init(indicator: GrowthIndicator, sex: GrowthStandard.Sex, range: ClosedRange<Double>, measurements: [Measurement],
                title: String? = nil, xLabel: String? = nil, yLabel: String? = nil) throws {
        let step = max((range.upperBound - range.lowerBound) / 120, indicator.axis == .ageDays ? 1 : 0.1)
        let curves = try GrowthStandard.curves(indicator, sex: sex, over: range, step: step)
        self.init(title: title ?? "WHO \(indicator.rawValue), \(sex == .boy ? "boys" : "girls")",
                  xLabel: xLabel ?? (indicator.axis == .ageDays ? "Age (months)" : "Length (cm)"),
                  yLabel: yLabel ?? "\(indicator == .headCircumferenceForAge ? "Head circumference" : indicator.unit == "kg" ? "Weight" : "Length/height") (\(indicator.unit))",
                  axis: indicator.axis, range: range, curves: curves, measurements: measurements)
    }

    /// The y range: everything drawn, with a margin, widened to whole ticks.
    var valueAxis: ChartAxis {
        let values = curves.flatMap { $0.points.map(\.value) } + shownMeasurements.map(\.value)
        let low = values.min() ?? 0, high = values.max() ?? 1
        return ChartAxis(covering: low...max(high, low + 1e-6), targetTicks: 8)
    }

    /// The x axis: months for age (ticks on whole months), cm for length.
    var positionAxis: ChartAxis {
        guard axis == .ageDays else { return ChartAxis(fixed: range, targetTicks: 10) }
        let months = (range.lowerBound / MotorMilestone.daysPerMonth)...(range.upperBound / MotorMilestone.daysPerMonth)
        return ChartAxis(fixed: months, targetTicks: 12)
    }

    var shownMeasurements: [Measurement] {
        measurements.filter { range.contains($0.x) }.sorted { $0.x < $1.x }
    }

    /// x in the axis's unit (months for age).
    func axisPosition(_ x: Double) -> Double {
        axis == .ageDays ? x / MotorMilestone.daysPerMonth : x
    }

    /// The colour of the child's points and line.
    static let measurementColor = PDFColor(red: 0.1, green: 0.25, blue: 0.75)

    /// The colour of a percentile line: green median, orange 15th/85th, red outer lines.
    static func color(forPercentile p: Double) -> PDFColor {
        switch p {
        case 50: PDFColor(red: 0.1, green: 0.5, blue: 0.2)
        case 15, 85: PDFColor(red: 0.9, green: 0.55, blue: 0.1)
        default: PDFColor(red: 0.8, green: 0.15, blue: 0.15)
        }
    }
}

/// An axis's range and tick step, the step a 1, 2 or 5 times a power of ten.
struct ChartAxis: Equatable {
    let range: ClosedRange<Double>
    let step: Double

    /// The range widened to whole steps around `values`.
    init(covering values: ClosedRange<Double>, targetTicks: Int) {
        let step = Self.niceStep((values.upperBound - values.lowerBound) / Double(targetTicks))
        self.step = step
        range = (values.lowerBound / step).rounded(.down) * step...(values.upperBound / step).rounded(.up) * step
    }

    /// The range as given, with ticks on whole steps inside it.
    init(fixed: ClosedRange<Double>, targetTicks: Int) {
        step = Self.niceStep((fixed.upperBound - fixed.lowerBound) / Double(targetTicks))
        range = fixed
    }

    var ticks: [Double] {
        let first = (range.lowerBound / step - 1e-9).rounded(.up)
        let last = (range.upperBound / step + 1e-9).rounded(.down)
        guard first <= last else { return [] }
        return stride(from: first, through: last, by: 1).map { $0 * step }
    }

    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0 else { return 1 }
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
        return nice * magnitude
    }

    /// A tick's label: whole numbers when the step is whole, else up to three decimals after
    /// `decimalSeparator`.
    func label(_ value: Double, decimalSeparator: String = ".") -> String {
        step >= 1 ? String(Int(value.rounded())) : PDFLiteral.number(value).replacingOccurrences(of: ".", with: decimalSeparator)
    }
}

/// Where a chart's parts go inside its frame, and where a value lands.
struct GrowthChartLayout {
    let chart: PDFGrowthChart
    let frame: PDFRect
    /// The plotting area: room on the left for value labels, on top for the title, at the bottom for
    /// ticks and the axis label, on the right for the curves' names.
    let plot: PDFRect
    let xAxis: ChartAxis
    let yAxis: ChartAxis

    init(_ chart: PDFGrowthChart, in frame: PDFRect) {
        self.chart = chart
        self.frame = frame
        plot = PDFRect(x: frame.x + 44, y: frame.y + 24, width: frame.width - 44 - 28, height: frame.height - 24 - 36)
        xAxis = chart.positionAxis
        yAxis = chart.valueAxis
    }

    /// The page point of a measurement `value` at `x` (days or cm).
    func point(_ x: Double, _ value: Double) -> PDFPoint {
        PDFPoint(x: pageX(axisValue: chart.axisPosition(x)), y: pageY(value))
    }

    /// The page x of a position on the x axis (months or cm).
    func pageX(axisValue: Double) -> Double {
        plot.x + (axisValue - xAxis.range.lowerBound) / (xAxis.range.upperBound - xAxis.range.lowerBound) * plot.width
    }

    /// The page y of a value on the y axis.
    func pageY(_ value: Double) -> Double {
        plot.maxY - (value - yAxis.range.lowerBound) / (yAxis.range.upperBound - yAxis.range.lowerBound) * plot.height
    }
}

extension PDFPage {
    /// Draws `chart` inside `frame`: title on top, axes, grid, curves labelled at their right end,
    /// and the measurements as points joined by a line.
    public mutating func growthChart(_ chart: PDFGrowthChart, in frame: PDFRect) {
        let layout = GrowthChartLayout(chart, in: frame)
        text(chart.title, x: frame.x + frame.width / 2, y: frame.y + 12, font: .helveticaBold, size: 12, alignment: .center)
        drawGrid(layout)
        for curve in chart.curves {
            let color = PDFGrowthChart.color(forPercentile: curve.percentile)
            polyline(curve.points.map { layout.point($0.x, $0.value) }, width: curve.percentile == 50 ? 1.4 : 0.9, color: color)
            if let last = curve.points.last {
                let end = layout.point(last.x, last.value)
                text("P\(PDFLiteral.number(curve.percentile))", x: end.x + 3, y: end.y + 3, size: 7, color: color)
            }
        }
        let child = chart.shownMeasurements.map { layout.point($0.x, $0.value) }
        polyline(child, width: 1, color: PDFGrowthChart.measurementColor)
        for p in child { circle(center: p, radius: 2.4, fill: PDFGrowthChart.measurementColor) }
        text(chart.xLabel, x: layout.plot.x + layout.plot.width / 2, y: frame.maxY - 4, size: 9, alignment: .center)
        text(chart.yLabel, x: frame.x, y: layout.plot.y - 8, size: 9)
    }

    private mutating func drawGrid(_ layout: GrowthChartLayout) {
        let plot = layout.plot, grid = PDFColor.gray(0.85)
        for tick in layout.xAxis.ticks {
            let x = layout.pageX(axisValue: tick)
            line(from: PDFPoint(x: x, y: plot.y), to: PDFPoint(x: x, y: plot.maxY), width: 0.4, color: grid)
            text(layout.xAxis.label(tick, decimalSeparator: layout.chart.decimalSeparator), x: x, y: plot.maxY + 11, size: 8, alignment: .center)
        }
        for tick in layout.yAxis.ticks {
            let y = layout.pageY(tick)
            line(from: PDFPoint(x: plot.x, y: y), to: PDFPoint(x: plot.maxX, y: y), width: 0.4, color: grid)
            text(layout.yAxis.label(tick, decimalSeparator: layout.chart.decimalSeparator), x: plot.x - 4, y: y + 3, size: 8, alignment: .right)
        }
        rectangle(plot, stroke: .black, lineWidth: 0.8)
    }
}
