/// A temperature reading's class (UC26). Readings are results only, in °C to one decimal, and a
/// body temperature outside 30–45 °C is a typing error, not a reading. The thresholds are the
/// usual Czech paediatric ones: up to 37.4 normal, 37.5–37.9 raised (zvýšená teplota),
/// 38.0–38.9 fever, 39.0–39.9 high fever, 40 and above very high; below 35.0 hypothermia.
enum Fever: String, Sendable {
    case hypothermia, normal, raised, fever, high, veryHigh

    static let range = 30.0...45.0

    /// Where each class above normal starts, as the temperature charts draw it (the PDF's; the
    /// console's `fever-chart.js` has the same four).
    static let thresholds: [(celsius: Double, name: String)] = [(37.5, "raised"), (38.0, "fever"), (39.0, "high fever"), (40.0, "very high")]

    static func classify(_ celsius: Double) -> Fever {
        switch celsius {
        case ..<35.0: .hypothermia
        case ..<37.5: .normal
        case ..<38.0: .raised
        case ..<39.0: .fever
        case ..<40.0: .high
        default: .veryHigh
        }
    }

    /// The reading rounded to 0.1 °C, or a refusal naming `field`.
    static func checked(_ celsius: Double, field: String) throws -> Double {
        guard celsius.isFinite, range.contains(celsius) else {
            throw BabyError.outOfRange(field, "\(celsius) °C is outside 30–45 °C: a body temperature is read in °C")
        }
        return (celsius * 10).rounded() / 10
    }
}
