import TesseraSDK

/// A plugin's roles per synced table (docs/sync.md, "Per-plugin roles"): the manifest's
/// `sync.roles`, which the owner's device hands the hub when it registers a space, and which the
/// hub (the authority) and each device (before accepting an offline write) check changes against.
///
/// ```json
/// {"parent": {"hubRole": "editor"},
///  "guardian": {"hubRole": "editor", "tables": {"children": "none", "records": "own"}}}
/// ```
public struct SyncRoleRules: Sendable, Hashable {
    /// What a role may do to one table.
    public enum Access: String, Sendable, Hashable, CaseIterable {
        /// Any change (the default for a table a role does not name).
        case write
        /// Only rows whose creation this person pushed first (their own rows), and new rows.
        case own
        /// No change at all.
        case none
    }

    /// One role: the hub role it stands on, and its access per table.
    public struct Role: Sendable, Hashable {
        /// `owner`, `editor` or `viewer`: what the hub's own checks see (membership stays the owner's).
        public var hubRole: String
        /// Access per table; a table not named has ``others``.
        public var tables: [String: Access]
        /// The access to tables not named: `write` for a declared role.
        public var others: Access = .write

        public init(hubRole: String, tables: [String: Access] = [:]) {
            self.hubRole = hubRole
            self.tables = tables
        }

        /// What a member holds whose plugin role the space's rules no longer name (its owner
        /// changed them): no change to any table, until they get a role that exists.
        public static let unknown: Role = {
            var role = Role(hubRole: "viewer")
            role.others = .none
            return role
        }()

        /// The role's access to `table`.
        public func access(to table: String) -> Access { tables[table] ?? others }

        /// Whether some table is `own`: then its holder's devices need to know which rows are theirs.
        public var hasOwnTables: Bool { tables.values.contains(.own) }
    }

    /// The roles by name.
    public var roles: [String: Role]

    public init(roles: [String: Role] = [:]) { self.roles = roles }

    /// The hub roles a plugin role may stand on.
    public static let hubRoles: Set<String> = ["owner", "editor", "viewer"]

    /// A role name: lowercase letters, digits, `-` and `_`, starting with a letter, at most 50.
    public static func isRoleName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.utf8.count <= 50 else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }

    /// Reads rules from their JSON form, naming the first member at fault (as a path under `at`).
    public init(json: JSONValue, at path: String = "$") throws(RuleError) {
        guard let object = json.objectValue else { throw RuleError(field: path, message: "the roles are an object of role names") }
        var roles: [String: Role] = [:]
        for (name, body) in object {
            let rolePath = "\(path).\(name)"
            guard Self.isRoleName(name) else {
                throw RuleError(field: rolePath, message: "a role's name is lowercase letters, digits, '-' and '_', starting with a letter")
            }
            guard let hubRole = body["hubRole"]?.stringValue, Self.hubRoles.contains(hubRole) else {
                throw RuleError(field: rolePath + ".hubRole", message: "a role's hubRole is owner, editor or viewer")
            }
            var tables: [String: Access] = [:]
            if let given = body["tables"] {
                guard let given = given.objectValue else { throw RuleError(field: rolePath + ".tables", message: "tables is an object") }
                for (table, value) in given {
                    guard let access = value.stringValue.flatMap(Access.init(rawValue:)) else {
                        throw RuleError(field: "\(rolePath).tables.\(table)", message: "a table's access is write, own or none")
                    }
                    tables[table] = access
                }
            }
            roles[name] = Role(hubRole: hubRole, tables: tables)
        }
        self.roles = roles
    }

    /// The JSON form (what ``init(json:at:)`` reads).
    public var json: JSONValue {
        .object(roles.mapValues { role in
            var body: [String: JSONValue] = ["hubRole": .string(role.hubRole)]
            if !role.tables.isEmpty { body["tables"] = .object(role.tables.mapValues { .string($0.rawValue) }) }
            return .object(body)
        })
    }

    /// Reads the stored text form; `nil` for none. Text that does not read as rules throws: a
    /// reader that took it for "no rules" would let every member write everything, so a write
    /// checked against it is refused instead (issue 44: no silent failure on a state-changing path).
    public static func parse(_ text: String?) throws(RuleError) -> SyncRoleRules? {
        guard let text else { return nil }
        let json: JSONValue
        do { json = try JSONValue(parsing: text) } catch {
            throw RuleError(field: "$", message: "the stored role rules are not JSON (\(error))")
        }
        return try SyncRoleRules(json: json)
    }

    /// A refused rule set: the member at fault, as a JSON path, and why.
    public struct RuleError: Error, Sendable, Hashable, CustomStringConvertible {
        public var field: String
        public var message: String
        public var description: String { "\(message) (at \(field))" }
    }
}
