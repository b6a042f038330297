@_spi(TesseraHost) import TesseraSDK

/// An operation call as it crosses the socket: `{"operation", "principal", "input"}`, the input
/// kept as JSON text from end to end (docs/isolation.md, "The frame format").
///
/// The host sends the bytes the caller sent it, which it parsed and checked against the
/// operation's schema, instead of writing its tree again; the child hands them to the plugin as
/// they are, and a typed handler decodes its input from them without a tree
/// (``OperationCall/init(operation:inputText:principal:)``). The input is checked as JSON when it
/// is decoded, not when the frame is read.
public struct OperationFrame: Sendable, Equatable {
    /// The operation's name.
    public var operation: String
    /// Who is calling.
    public var principal: Principal
    /// The input, as JSON text.
    public var inputText: [UInt8]

    /// A frame of `operation`, called by `principal`, with `inputText` as its input (JSON text).
    public init(operation: String, principal: Principal, inputText: [UInt8]) {
        self.operation = operation
        self.principal = principal
        self.inputText = inputText
    }

    /// A call as the host's dispatch made it: its input's text if it came as text, otherwise its
    /// tree written once.
    public init(_ call: OperationCall) {
        var text: [UInt8]
        if let given = call.inputText { text = given } else {
            text = []
            call.input.appendSerialized(to: &text)
        }
        self.init(operation: call.operation, principal: call.principal, inputText: text)
    }

    /// The call a handler in the child receives: its input as text, parsed only if the handler
    /// reads it as a tree.
    public var call: OperationCall { OperationCall(operation: operation, inputText: inputText, principal: principal) }

    /// The params as one tree (tests, the frames' documentation, and a peer that answers no
    /// operations): an input that is not JSON reads as `null`.
    public var params: JSONValue {
        ["operation": .string(operation), "input": (try? JSONValue(parsing: inputText)) ?? .null,
         "principal": ["id": .string(principal.id), "role": .string(principal.role.rawValue)]]
    }

    /// Appends the params object, the input's text as it is.
    func appendParams(to out: inout [UInt8]) {
        out += #"{"operation":"#.utf8
        JSONValue.string(operation).appendSerialized(to: &out)
        out += #","principal":{"id":"#.utf8
        JSONValue.string(principal.id).appendSerialized(to: &out)
        out += #","role":"#.utf8
        JSONValue.string(principal.role.rawValue).appendSerialized(to: &out)
        out += #"},"input":"#.utf8
        out += inputText
        out += "}".utf8
    }

    /// Reads the params object with `scanner` (over its bytes). As ``OperationCall/init(wire:)``
    /// reads a tree: a principal left out is the user `""`, an input left out is `null`.
    init(params scanner: EnvelopeScanner) throws(EnvelopeScanner.Malformed) {
        var walker = scanner
        var operation: String?, principal = Principal(id: "", role: .user), input: Range<Int>?
        try walker.members { key, value throws(EnvelopeScanner.Malformed) in
            switch scanner.name(key) {
            case "operation":
                guard let name = try scanner.string(value) else { throw EnvelopeScanner.Malformed(reason: "the operation's name is not a string") }
                operation = name
            case "principal": principal = try Self.principal(scanner.scanner(of: value))
            case "input": input = value
            default: _ = try scanner.json(value)
            }
        }
        guard let operation else { throw EnvelopeScanner.Malformed(reason: "an operation call names no operation") }
        self.init(operation: operation, principal: principal, inputText: input.map(scanner.bytes) ?? Array("null".utf8))
    }

    private static func principal(_ scanner: EnvelopeScanner) throws(EnvelopeScanner.Malformed) -> Principal {
        var walker = scanner
        var id = "", role = Principal.Role.user
        try walker.members { key, value throws(EnvelopeScanner.Malformed) in
            switch scanner.name(key) {
            case "id":
                guard let text = try scanner.string(value) else { throw EnvelopeScanner.Malformed(reason: "the principal's id is not a string") }
                id = text
            case "role":
                guard let text = try scanner.string(value) else { throw EnvelopeScanner.Malformed(reason: "the principal's role is not a string") }
                role = Principal.Role(rawValue: text)
            default: _ = try scanner.json(value)
            }
        }
        return Principal(id: id, role: role)
    }
}
