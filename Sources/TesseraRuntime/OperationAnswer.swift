@_spi(TesseraHost) import TesseraSDK

/// An operation's answer as the host's dispatch has it (``PluginHost/answer(_:_:json:as:)``).
///
/// A plugin in the host's process answers with a value. One in the process tier answers with the
/// JSON text its child sent, checked by the parser's rules on the way in and never read into a
/// tree: the edge writes it to the response as it is, so an answer that only passes through the
/// host is not parsed and written out again.
public enum OperationAnswer: Sendable {
    /// A value, as a plugin in the host's process returned it.
    case value(JSONValue)
    /// JSON text, checked to be one value by the parser's rules.
    case text([UInt8])

    /// The answer as a value: text read into one.
    public var value: JSONValue {
        switch self {
        case .value(let value): return value
        // Checked on the way in, so it parses; `null` only if that promise were broken.
        case .text(let text): return (try? JSONValue(parsing: text)) ?? .null
        }
    }

    /// The answer as JSON text: a value serialised as the edge writes one.
    public var text: [UInt8] {
        switch self {
        case .text(let text): return text
        case .value(let value):
            var text: [UInt8] = []
            value.appendSerialized(to: &text)
            return text
        }
    }
}
