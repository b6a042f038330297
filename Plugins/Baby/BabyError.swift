import TesseraSDK

/// The module's refusals, each naming the field or rule and carrying a stable code as the error's
/// `reason` (listed in the manifest's `reasons`), as the other modules do. All are thrown before
/// anything is written.
enum BabyError {
    static func invalid(_ field: String, _ message: String, reason: PluginError.Code? = nil) -> PluginError {
        PluginError(.invalidInput, "\(field): \(message)", field: "$.\(field)", reason: reason)
    }

    static func outOfRange(_ field: String, _ message: String) -> PluginError {
        PluginError(.invalidInput, "\(field): \(message)", field: "$.\(field)", reason: "out_of_range")
    }

    static func notFound(_ what: String, _ id: String) -> PluginError {
        PluginError(.notFound, "no \(what) '\(id)'", reason: PluginError.Code(rawValue: "unknown_" + what.replacingOccurrences(of: " ", with: "_")))
    }

    static func forbidden(_ message: String, code: PluginError.Code) -> PluginError {
        PluginError(.forbidden, message, reason: code)
    }

    static func unprocessable(_ message: String, code: PluginError.Code) -> PluginError {
        PluginError(.unprocessable, message, reason: code)
    }
}
