import Foundation
import TesseraSDK

/// Export (UC32) and growth percentiles: the data is gathered here; rendering it as PDF, vCard,
/// CSV, and the WHO percentiles, are pure components written beside this module (`Documents/`:
/// `BabyPDF`, the vCard writer, CSV/JSON helpers; `Growth/`: `GrowthStandard`).
/// TODO(merge): the lead wires those in at the two marked points below.
extension Diary {
    static let exportSections = ["profile", "healthCard", "measurements", "milestones", "posts", "healthProblems", "contacts"]

    struct ExportInput: Decodable, Sendable { var childId: String; var sections: [String]? }

    /// The chosen sections of a child's data as one JSON document (owners and parents; §9.8
    /// question 2 keeps guardians out, as the thesis's server read only the parent DB).
    func export(_ input: ExportInput) async throws -> JSONValue {
        try await require(.export, on: input.childId)
        let sections = input.sections ?? Self.exportSections
        for (index, section) in sections.enumerated() { _ = try Validate.oneOf(section, Self.exportSections, field: "sections[\(index)]") }
        var document: [String: JSONValue] = [:]
        let profile = try await childProfile(input.childId)
        for section in sections {
            switch section {
            case "profile": document["profile"] = profile
            case "healthCard": document["healthCard"] = profile["health"] ?? .null
            case "contacts": document["contacts"] = try await contacts(childID: input.childId, kind: nil)["contacts"] ?? []
            default:
                let type: RecordType = switch section {
                case "measurements": .measurement
                case "milestones": .milestone
                case "posts": .post
                default: .healthProblem
                }
                document[section] = .array(try await query("SELECT * FROM records WHERE child_id = ? AND type = ? ORDER BY occurred_at, id",
                                                           [.text(input.childId), .text(type.rawValue)]).map(Self.recordJSON))
            }
        }
        // TODO(merge): BabyPDF renders `document` (Documents/); store it with files.put and answer its address.
        return ["childId": .string(input.childId), "generatedAt": .string(stamp()), "sections": .object(document), "pdf": .null]
    }

    /// TODO(merge): GrowthStandard (Growth/) gives each point's z-score and percentile for the
    /// child's age; until it is wired the series carries none.
    func growthPercentiles(childID: String, kind: MeasurementKind, points: [Row]) -> JSONValue {
        .null
    }
}
