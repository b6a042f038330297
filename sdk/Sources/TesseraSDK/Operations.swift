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
    public var input: JSONValue
    /// Who is calling.
    public var principal: Principal

    /// Creates a call.
    public init(operation: String, input: JSONValue, principal: Principal) {
        self.operation = operation
        self.input = input
        self.principal = principal
    }
}

/// Handles one operation: validated JSON in, JSON out.
public typealias OperationHandler = @Sendable (OperationCall) async throws -> JSONValue

/// Handles a timer that fell due.
public typealias TimerHandler = @Sendable (TimerFiring) async throws -> Void
