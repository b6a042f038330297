import Synchronization

/// Who is making a call. The host has authenticated the principal and checked, before dispatch,
/// that its role may call the operation (the manifest's `roles` for it).
public struct Principal: Sendable, Hashable {
    /// What the principal is allowed to be, as the manifest's `roles` spell it.
    public struct Role: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The role as text.
        public let rawValue: String
        /// Creates a role.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The role as text.
        public var description: String { rawValue }

        /// An end user of the app.
        public static let user = Role(rawValue: "user")
        /// The operator of this host (the local CLI, or an admin token).
        public static let admin = Role(rawValue: "admin")
        /// The host itself (timers, events).
        public static let system = Role(rawValue: "system")
    }

    /// A stable identifier of the person, device or service.
    public var id: String
    /// Its role for this call.
    public var role: Role

    /// Creates a principal.
    public init(id: String, role: Role) {
        self.id = id
        self.role = role
    }
}

/// One call of an operation, as the plugin's handler receives it.
public struct OperationCall: Sendable {
    /// The operation's name, as declared in the manifest.
    public var operation: String
    /// The input, already validated by the host against the operation's input schema.
    public var input: JSONValue {
        get { payload.value }
        set { payload = .value(newValue) }
    }
    /// Who is calling.
    public var principal: Principal

    /// The input as the host holds it: a tree, or (in the process tier) the JSON text it arrived as.
    private var payload: OperationInput

    /// Creates a call.
    public init(operation: String, input: JSONValue, principal: Principal) {
        self.operation = operation
        self.payload = .value(input)
        self.principal = principal
    }

    /// A call whose input is also the JSON text `inputText`, which the host parsed into `input`
    /// (the process tier then sends the text on as it came, not written again from the tree).
    @_spi(TesseraHost)
    public init(operation: String, input: JSONValue, inputText: [UInt8], principal: Principal) {
        self.operation = operation
        self.payload = .valueAndText(input, inputText)
        self.principal = principal
    }

    /// A call whose input is only the JSON text the host sent (the process tier's child): a typed
    /// handler decodes it without a tree (JSONTape.swift); ``input`` parses it when first read.
    @_spi(TesseraHost)
    public init(operation: String, inputText: [UInt8], principal: Principal) {
        self.operation = operation
        self.payload = .text(LazyInputTree(text: inputText))
        self.principal = principal
    }

    /// The JSON text the input arrived as, if the call has it.
    @_spi(TesseraHost)
    public var inputText: [UInt8]? {
        switch payload {
        case .value: return nil
        case .valueAndText(_, let text): return text
        case .text(let lazy): return lazy.text
        }
    }

    /// Decodes the input as `T`, as a typed handler gets it: from the tree when there is one,
    /// otherwise straight from the text (`tessera-bench codable` times both).
    @_spi(TesseraHost)
    public func decodeInput<T: Decodable>(as type: T.Type) throws -> T {
        switch payload {
        case .value(let value), .valueAndText(let value, _): return try value.decode(as: type)
        case .text(let lazy):
            if let tree = lazy.parsedTree { return try tree.decode(as: type) }
            return try JSONTape(parsing: lazy.text).decode(type)
        }
    }
}

/// Where a call's input is.
private enum OperationInput: Sendable {
    case value(JSONValue)
    case valueAndText(JSONValue, [UInt8])
    case text(LazyInputTree)

    var value: JSONValue {
        switch self {
        case .value(let value), .valueAndText(let value, _): return value
        case .text(let lazy): return lazy.tree
        }
    }
}

/// An input held as text, parsed into a tree the first time a handler reads ``OperationCall/input``.
/// The text is what the host sent, which it had parsed itself; one that does not parse reads as
/// `null` here (a typed handler, which reads the text directly, refuses it as `invalidInput`).
private final class LazyInputTree: Sendable {
    let text: [UInt8]
    private let parsed = Mutex<JSONValue?>(nil)

    init(text: [UInt8]) { self.text = text }

    var parsedTree: JSONValue? { parsed.withLock { $0 } }

    var tree: JSONValue {
        parsed.withLock { tree in
            if let tree { return tree }
            let value = (try? JSONValue(parsing: text)) ?? .null
            tree = value
            return value
        }
    }
}

/// Handles one operation: validated JSON in, JSON out.
public typealias OperationHandler = @Sendable (OperationCall) async throws -> JSONValue

/// Handles one operation and answers with JSON text, which the host hands on as it is: the host's
/// forwarder to a plugin in the process tier, whose answer arrives as text. Host-only (SPI).
@_spi(TesseraHost)
public typealias OperationTextHandler = @Sendable (OperationCall) async throws -> [UInt8]

/// Handles a timer that fell due.
public typealias TimerHandler = @Sendable (TimerFiring) async throws -> Void
