import TesseraSDK

/// The module's refusals, each naming the field or rule and carrying a stable code in its message
/// (`(code NAME)`), as the other modules do. All are thrown before anything is written.
enum BabyError {
    static func invalid(_ field: String, _ message: String) -> PluginError {
        PluginError(.invalidInput, "\(field): \(message)", field: "$.\(field)")
    }

    static func outOfRange(_ field: String, _ message: String) -> PluginError {
        PluginError(.invalidInput, "\(field): \(message) (code out_of_range)", field: "$.\(field)")
    }

    static func notFound(_ what: String, _ id: String) -> PluginError {
        PluginError(.notFound, "no \(what) '\(id)' (code unknown_\(what.replacingOccurrences(of: " ", with: "_")))")
    }

    static func forbidden(_ message: String, code: String) -> PluginError {
        PluginError(.forbidden, "\(message) (code \(code))")
    }

    static func unprocessable(_ message: String, code: String) -> PluginError {
        PluginError(.unprocessable, "\(message) (code \(code))")
    }
}
