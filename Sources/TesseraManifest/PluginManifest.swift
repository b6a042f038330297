import TesseraSDK
import TesseraSchema

/// A plugin's manifest: everything the host knows about a plugin without running its code.
///
/// Listing, routing, grants and input validation come from here alone.
/// A class rather than a struct: the host hands the manifest of a plugin to every call it admits,
/// and a copy of a twenty-field struct is twenty retains and releases on the hot path.
public final class PluginManifest: Sendable {
    /// The plugin's unique id.
    public let id: String
    /// A human name.
    public let name: String
    /// What the plugin does, in a sentence.
    public let summary: String?
    /// The plugin's own version.
    public let version: SemanticVersion
    /// The boundary its library speaks: the Swift SDK's, or the stable C ABI (`"abi": "c"`).
    public let abi: PluginABI
    /// The ABI version the plugin was built against: the SDK's for ``PluginABI/swift``, the C
    /// ABI's (`tessera_plugin.h`) for ``PluginABI/c``.
    public let sdkABI: (major: UInt32, minor: UInt32)
    /// The Swift toolchain the plugin was built with (e.g. `6.3.1`); empty for a C-ABI plugin.
    public let toolchain: String
    /// Where its library is.
    public let library: LibraryReference
    /// The capabilities it needs.
    public let requires: [CapabilityRequirement]
    /// What it asks each capability to allow (capability name -> permissions object).
    public let permissions: [String: JSONValue]
    /// Its operations.
    public let operations: [OperationDeclaration]
    /// Events it emits.
    public let emits: [String]
    /// Events of other plugins it consumes (`plugin-id/event`).
    public let consumes: [String]
    /// Recurring timers the host schedules for it.
    public let jobs: [JobDeclaration]
    /// The plugin's own codes for its refusals (`PluginError.reason`), each with the sentence that
    /// says when it is given (the manifest's `reasons`).
    public var reasons: [String: String] {
        document["reasons"]?.objectValue?.compactMapValues(\.stringValue) ?? [:]
    }
    /// The schema its configuration must satisfy (compiled), if any.
    public var configSchema: JSONSchema? { configSchemaOnFirstUse?.schema }
    /// The config schema, compiled at once or when first used (``SchemaOnFirstUse``).
    let configSchemaOnFirstUse: SchemaOnFirstUse?
    /// The version of its in-memory state, and the versions it can migrate from (hot swap).
    public let stateSchema: Int?
    public let stateMigratesFrom: [Int]
    /// Whether it can be swapped while the host runs.
    public let hotSwap: Bool
    /// Where it runs.
    public let isolation: Isolation
    /// The pages it adds to the web console, if any.
    public let ui: UIDeclaration?
    /// The manifest file it was read from.
    public let file: String
    /// The manifest as written.
    public let document: JSONValue
    /// The tables the plugin syncs (`sync.tables`), each with its text columns whose losing
    /// concurrent values are kept as conflicts (`keepConflicts`).
    public let syncTables: [String: [String]]
    /// Its per-plugin roles (`sync.roles`): by name, the hub role each stands on and its access
    /// per synced table. Empty when the manifest declares none.
    public let syncRoles: [String: SyncRoleDeclaration]

    /// Where each operation sits in ``operations``, by name, for dispatch.
    private let operationIndexByName: [String: Int]

    /// A manifest from its parts (``ManifestReader`` reads one from a file), its config schema
    /// compiled at once or when first used.
    init(
        id: String,
        name: String,
        summary: String?,
        version: SemanticVersion,
        sdkABI: (major: UInt32, minor: UInt32),
        toolchain: String,
        library: LibraryReference,
        requires: [CapabilityRequirement],
        permissions: [String: JSONValue],
        operations: [OperationDeclaration],
        emits: [String],
        consumes: [String],
        jobs: [JobDeclaration],
        configSchemaOnFirstUse: SchemaOnFirstUse?,
        stateSchema: Int?,
        stateMigratesFrom: [Int],
        hotSwap: Bool,
        isolation: Isolation,
        ui: UIDeclaration?,
        file: String,
        document: JSONValue,
        syncTables: [String: [String]],
        syncRoles: [String: SyncRoleDeclaration],
        abi: PluginABI
    ) {
        self.id = id
        self.abi = abi
        self.name = name
        self.summary = summary
        self.version = version
        self.sdkABI = sdkABI
        self.toolchain = toolchain
        self.library = library
        self.requires = requires
        self.permissions = permissions
        self.operations = operations
        self.emits = emits
        self.consumes = consumes
        self.jobs = jobs
        self.configSchemaOnFirstUse = configSchemaOnFirstUse
        self.stateSchema = stateSchema
        self.stateMigratesFrom = stateMigratesFrom
        self.hotSwap = hotSwap
        self.isolation = isolation
        self.ui = ui
        self.file = file
        self.document = document
        self.syncTables = syncTables
        self.syncRoles = syncRoles
        operationIndexByName = Dictionary(operations.indices.map { (operations[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The operation declared under `name`.
    public func operation(named name: String) -> OperationDeclaration? {
        operationIndex(named: name).map { operations[$0] }
    }

    /// Where the operation declared under `name` sits in ``operations``.
    ///
    /// For a caller on every request's path (dispatch, the HTTP edge): it reads the parts it
    /// needs in place (`operations[index].roles`), where ``operation(named:)`` hands back a copy,
    /// retaining and releasing each of the declaration's references.
    public func operationIndex(named name: String) -> Int? {
        operationIndexByName[name]
    }

    /// The requirement for a capability, if the plugin declares one.
    public func requirement(for capability: String) -> CapabilityRequirement? {
        requires.first { $0.capability == capability }
    }
}

/// The boundary a plugin's library speaks (the manifest's `abi`).
public enum PluginABI: String, Sendable, Hashable {
    /// It links the host's Swift SDK, built by the host's own toolchain (`tessera_abi.h`).
    case swift
    /// It speaks the stable C ABI (`tessera_plugin.h`): any language, any compiler.
    case c
}

/// Where a plugin's shared library is.
public struct LibraryReference: Sendable, Hashable {
    /// A product name: the host looks for `lib<name>.so` on its library path.
    public let name: String?
    /// A path, relative to the manifest's folder.
    public let path: String?
    /// The expected sha256 of the file, when pinned.
    public let sha256: String?

    /// The file name the host looks for.
    public var fileName: String {
        if let path { return path }
        return "lib\(name ?? "").so"
    }
}

/// A capability a plugin needs.
public struct CapabilityRequirement: Sendable, Hashable {
    /// The capability's name (`storage`, `clock`, …).
    public let capability: String
    /// The capability versions the plugin works with.
    public let versions: VersionRange
    /// Whether the plugin starts without it.
    public let optional: Bool
}

/// An operation a plugin offers.
public struct OperationDeclaration: Sendable {
    /// Its name, unique within the plugin.
    public let name: String
    /// One line for people.
    public let summary: String?
    /// The input schema, as written.
    public let inputSchemaDocument: JSONValue
    /// The input schema, compiled (at the manifest's read, or by the first call: ``SchemaOnFirstUse``).
    public var inputSchema: JSONSchema { inputSchemaOnFirstUse.schema }
    /// The input schema, compiled at once or when first used.
    let inputSchemaOnFirstUse: SchemaOnFirstUse
    /// The output schema, as written.
    public let outputSchemaDocument: JSONValue
    /// Who may call it. Defaults to `user` and `admin`.
    public let roles: [Principal.Role]
    /// Its deadline in the process tier, overriding the host's default (docs/isolation.md).
    public internal(set) var timeoutSeconds: Double? = nil
    /// Whether, over HTTP, it takes a file's bytes as its body or answers with one (`"file"`; docs/files.md).
    public var file: FileTransfer? = nil
}

/// How an operation moves a file's bytes over HTTP (the operation's `"file"` in its manifest).
public enum FileTransfer: String, Sendable, Hashable {
    /// The request body is the file: the host stores it (files capability) and calls the operation
    /// with its descriptor as `file`, and the query parameters as strings.
    case upload
    /// The operation answers with a file's address: the host serves that file's bytes (`GET`, with
    /// the query parameters as the input's strings).
    case download
}

/// The pages a plugin adds to the web console's end-user view (`"ui"` in its manifest): static
/// files the host serves under `/ui/<id>/`, with no plugin code running to serve them.
public struct UIDeclaration: Sendable, Hashable {
    /// The folder holding the files, as an absolute path (the manifest names it relative to its own
    /// folder).
    public let folder: String
    /// The page's title in the console's list of modules.
    public let title: String
    /// The title in other languages, by language code (`"cs"`, `"sk"`); ``title`` where one is missing.
    public var titles: [String: String] = [:]
}

/// A recurring timer.
public struct JobDeclaration: Sendable, Hashable {
    /// The timer handler's name.
    public let name: String
    /// How often it runs, in seconds.
    public let everySeconds: Int64
}

/// Where a plugin's code runs.
public enum Isolation: String, Sendable, Hashable {
    /// In the host process.
    case inProcess
    /// In a child process of its own (the process tier, docs/isolation.md).
    case process
}

/// One per-plugin role of a manifest's `sync.roles` (docs/sync.md, "Per-plugin roles").
public struct SyncRoleDeclaration: Sendable, Hashable {
    /// The hub role it stands on: `owner`, `editor` or `viewer`.
    public let hubRole: String
    /// Access per synced table: `write`, `own` or `none`; a table not named is `write`.
    public let tables: [String: String]

    public init(hubRole: String, tables: [String: String]) {
        self.hubRole = hubRole
        self.tables = tables
    }

    /// The manifest's `sync.roles` as JSON, the form the hub keeps.
    public static func json(_ roles: [String: SyncRoleDeclaration]) -> JSONValue {
        .object(roles.mapValues { role in
            var body: [String: JSONValue] = ["hubRole": .string(role.hubRole)]
            if !role.tables.isEmpty { body["tables"] = .object(role.tables.mapValues(JSONValue.string)) }
            return .object(body)
        })
    }
}
