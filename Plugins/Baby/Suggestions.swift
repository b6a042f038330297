import Foundation
import TesseraSDK

/// Autocomplete (L838–L840): every vaccination, medication, allergen and custom milestone name a
/// person types is remembered in their own space (synced to their devices, never to the child's
/// other members) and offered after the presets.
extension Diary {
    static let suggestionFields = ["vaccination", "medication", "allergy", "milestone"]

    func remember(_ value: String, field: String) async throws {
        let id = "\(field):\(value.lowercased())"
        try await storage.write { $0.put("suggestions", id: id, ["field": .text(field), "value": .text(value), "last_used_at": .text(stamp())]) }
    }

    func suggestions(field: String, prefix: String?) async throws -> JSONValue {
        _ = try Validate.oneOf(field, Self.suggestionFields, field: "field")
        let prefix = (prefix ?? "").lowercased()
        let presets: [String] = switch field {
        case "allergy": config.allergens
        case "milestone": Self.milestonePresets
        default: []
        }
        let own = try await query("SELECT value FROM suggestions WHERE field = ? ORDER BY last_used_at DESC", [.text(field)]).compactMap { $0["value"].text }
        var seen = Set<String>(), values: [JSONValue] = []
        for value in own + presets where value.lowercased().hasPrefix(prefix) && seen.insert(value.lowercased()).inserted {
            values.append(.string(value))
        }
        return ["field": .string(field), "values": .array(values)]
    }
}
