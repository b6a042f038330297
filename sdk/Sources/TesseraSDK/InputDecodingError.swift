/// Turning a failure to decode an operation's input into the error its caller sees.
///
/// The host checks every input against the operation's JSON Schema before the plugin runs, so a
/// decoding failure means the schema allows something the plugin's type does not (a number too
/// large for an `Int`, a string no `enum` case has). The caller must still learn which field and
/// which rule, in words: never Swift's own text (`typeMismatch(Swift.Int64, …)`), which names
/// internal types and reads as a crash.
extension PluginError {
    /// An ``Code-swift.struct/invalidInput`` error for input that did not decode: `field` is the
    /// JSON path of the member at fault (`$.items[2].termId`), and the message states the rule it
    /// broke ("must be an integer between -9223372036854775808 and 9223372036854775807").
    ///
    /// A ``PluginError`` thrown by a type's own `init(from:)` is returned as it is, its field placed
    /// under `root` when it names one below `$`; any other error gets a generic message.
    ///
    /// - Parameters:
    ///   - error: what `JSONValue.decode(as:)` (or a `JSONDecoder`) threw.
    ///   - root: the JSON path of the value that was decoded, when it is a part of the input
    ///     (`$.pack`); paths in the error are relative to it.
    public static func invalidInput(decoding error: any Error, at root: String = "$") -> PluginError {
        if let error = error as? PluginError {
            guard root != "$", let field = error.field, field.hasPrefix("$") else { return error }
            return PluginError(error.code, error.message, field: root + field.dropFirst())
        }
        guard let error = error as? DecodingError else {
            return PluginError(.invalidInput, "the input does not have the shape this operation expects", field: root)
        }
        let (path, rule) = InputDecodingFailure.pathAndRule(error)
        let field = InputDecodingFailure.jsonPath(path, root: root)
        return PluginError(.invalidInput, "\(field) \(rule)", field: field)
    }
}

/// The pieces of a `DecodingError` a person can act on: where, and what rule.
enum InputDecodingFailure {
    /// The coding path of the member at fault, and the rule as the end of a sentence ("must be a string").
    static func pathAndRule(_ error: DecodingError) -> ([any CodingKey], String) {
        switch error {
        case .keyNotFound(let key, let context):
            return (context.codingPath + [key], "is required")
        case .valueNotFound(let type, let context):
            return (context.codingPath, "must be \(kind(of: type)), not null")
        case .typeMismatch(let type, let context):
            return (context.codingPath, "must be \(kind(of: type))")
        case .dataCorrupted(let context):
            return (context.codingPath, rule(from: context.debugDescription))
        @unknown default:
            return ([], "does not have the shape this operation expects")
        }
    }

    /// The JSON path of a coding path: `$.items[2].name`. Array positions are keys with an
    /// `intValue` (the SDK's decoder and Foundation's both make them so).
    static func jsonPath(_ path: [any CodingKey], root: String = "$") -> String {
        var text = root
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else if key.stringValue.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) && !key.stringValue.isEmpty {
                text += "." + key.stringValue
            } else {
                text += "['" + key.stringValue.replacingOccurrences(of: "'", with: "\\'") + "']"
            }
        }
        return text
    }

    /// What a value of `type` is, in JSON's words.
    static func kind(of type: Any.Type) -> String {
        switch type {
        case is String.Type, is Character.Type: "a string"
        case is Bool.Type: "true or false"
        case is any FixedWidthInteger.Type: "an integer"
        case is any BinaryFloatingPoint.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default:
            // A nested type of the plugin's: its name would mean nothing to the caller.
            "a value of the expected kind"
        }
    }

    /// The rule in a `dataCorrupted` description. The SDK's decoder words its own as rules
    /// ("must be an integer between …"); Swift's synthesized `RawRepresentable` decoding names the
    /// plugin's type ("Cannot initialize Kind from invalid String value x"), which becomes "is not
    /// one of the accepted values"; a plugin's own description is kept, as the plugin wrote it for
    /// its callers.
    static func rule(from description: String) -> String {
        if description.hasPrefix("must ") || description.hasPrefix("is ") { return description }
        if description.hasPrefix("Cannot initialize ") { return "is not one of the accepted values" }
        if description.hasPrefix("The given data was not valid JSON") { return "is not valid JSON" }
        return "is not valid: \(description)"
    }
}
