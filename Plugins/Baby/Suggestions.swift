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

    func suggestions(field: String, prefix: String?, language: String? = nil) async throws -> JSONValue {
        _ = try Validate.oneOf(field, Self.suggestionFields, field: "field")
        let words = try language.map { try ExportWords(code: $0) }
        let prefix = Self.folded(prefix ?? "")
        let own = try await query("SELECT value FROM suggestions WHERE field = ? ORDER BY last_used_at DESC", [.text(field)]).compactMap { $0["value"].text }
        var seen = Set<String>(), values: [JSONValue] = [], labels: [String: JSONValue] = [:]
        for value in own where Self.folded(value).hasPrefix(prefix) && seen.insert(value.lowercased()).inserted {
            values.append(.string(value))
        }
        switch field {
        case "allergy":
            for value in config.allergens where Self.folded(value).hasPrefix(prefix) && seen.insert(value.lowercased()).inserted {
                values.append(.string(value))
            }
        case "milestone":
            // A preset is a key ("firstSmile"); it is found by the words a person types in any of
            // the three languages ("Prv" finds the four "první …"), or in theirs when given.
            for key in Self.milestonePresets where seen.insert(key.lowercased()).inserted {
                let said = words.map { [$0.recordKind(type: RecordType.milestone.rawValue, kind: key)] }
                    ?? ExportWords.Language.allCases.map { ExportWords($0).recordKind(type: RecordType.milestone.rawValue, kind: key) }
                guard prefix.isEmpty || Self.folded(key).hasPrefix(prefix)
                        || said.contains(where: { Self.folded($0).split(separator: " ").contains { $0.hasPrefix(prefix) } || Self.folded($0).hasPrefix(prefix) })
                else { continue }
                values.append(.string(key))
                if let words { labels[key] = .string(words.recordKind(type: RecordType.milestone.rawValue, kind: key)) }
            }
        default: break
        }
        var answer: [String: JSONValue] = ["field": .string(field), "values": .array(values)]
        if words != nil { answer["labels"] = .object(labels) }
        return .object(answer)
    }

    /// Text as a search compares it: lowercase, without diacritics ("Prv" finds "první").
    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }
}
