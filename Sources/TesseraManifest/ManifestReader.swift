import Foundation
import TesseraSDK
import TesseraSchema

/// Reads plugin manifests: JSON -> schema check -> the rules a schema cannot say -> ``PluginManifest``.
public enum ManifestReader {
    /// The compiled manifest schema (manifests/schema/plugin-manifest.schema.json).
    public static let schema = JSONDocument.compile(EmbeddedSchemas.pluginManifest)

    /// Reads and checks the manifest in `file`.
    ///
    /// A file read before with exactly the same bytes is not parsed, checked and compiled again:
    /// the manifest read then is handed out (``ManifestCache``; a change of any byte reads anew).
    /// With `checked`, as ``read(file:content:document:checked:)`` says.
    public static func read(file: String, checked: CheckedManifests? = nil) throws(ManifestError) -> PluginManifest {
        try read(file: file, content: JSONDocument.contents(of: file), checked: checked)
    }

    /// ``read(file:)`` of a file whose bytes the caller has read already, and whose JSON it has
    /// parsed if `document` is given (the host's manifest catalog reads every file's `id` first):
    /// neither is done again.
    ///
    /// With `checked`, bytes that passed under this host build before are not checked against the
    /// manifest schema again, and their schemas are compiled when first used; bytes that pass now
    /// are recorded there (``CheckedManifests``). `recorded` says the caller found these bytes'
    /// record there already (the catalog took the file's id from it), so it is not looked for
    /// again: looking hashes the whole file.
    public static func read(file: String, content: Data, document: JSONValue? = nil,
                            checked: CheckedManifests? = nil, recorded: Bool = false) throws(ManifestError) -> PluginManifest {
        // Kept under the absolute path: a relative one is resolved against the current folder
        // (the `ui` folder is made absolute from it), which may change between two reads.
        let key = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        if let kept = ManifestCache.manifest(file: key, content: content) { return kept }
        let parsed: JSONValue
        if let document { parsed = document } else { parsed = try JSONDocument.parse(content, file: file) }
        let passedBefore = recorded || (checked?.passed(content) ?? false)
        let manifest = try decode(parsed, file: file, passedBefore: passedBefore)
        if !passedBefore { checked?.record(content, id: manifest.id) }
        ManifestCache.keep(manifest, file: key, content: content)
        return manifest
    }

    /// Checks and decodes a manifest document. `file` names it in errors.
    public static func decode(_ doc: JSONValue, file: String) throws(ManifestError) -> PluginManifest {
        try decode(doc, file: file, passedBefore: false)
    }

    /// Decodes a manifest document; unless its bytes `passedBefore` under this build, checks it
    /// against the manifest schema and compiles its schemas first. The rules a schema cannot say
    /// are checked either way: they cost little.
    static func decode(_ doc: JSONValue, file: String, passedBefore: Bool) throws(ManifestError) -> PluginManifest {
        if !passedBefore { try JSONDocument.check(doc, against: schema, file: file) }
        func fail(_ path: String, _ expected: String, _ found: String) -> ManifestError {
            ManifestError(file: file, path: path, expected: expected, found: found)
        }
        guard let version = SemanticVersion(doc["version"]!.stringValue!) else {
            throw fail("$.version", "a SemVer version", doc["version"]!.brief)
        }
        let abiParts = doc["sdk"]!["abi"]!.stringValue!.split(separator: ".").compactMap { UInt32($0) }
        guard abiParts.count == 2 else { throw fail("$.sdk.abi", "MAJOR.MINOR", doc["sdk"]!["abi"]!.brief) }
        let abi = PluginABI(rawValue: doc["abi"]?.stringValue ?? "swift") ?? .swift
        let toolchain = doc["sdk"]?["toolchain"]?.stringValue
        // A Swift plugin must name the toolchain it was built with (gate 1 holds it to the host's);
        // a C-ABI plugin names none, since no compiler of the host's matters to it.
        switch (abi, toolchain) {
        case (.swift, nil): throw fail("$.sdk.toolchain", "the Swift toolchain the plugin is built with, such as 6.3.1", "nothing")
        case (.c, let named?): throw fail("$.sdk.toolchain", "no toolchain for a C-ABI plugin (abi 'c')", "'\(named)'")
        default: break
        }

        let requires = try decodeRequirements(doc, fail: fail)
        let permissions = doc["permissions"]?.objectValue ?? [:]
        for key in permissions.keys.sorted() where !requires.contains(where: { $0.capability == key }) {
            throw fail("$.permissions.\(key)", "permissions only for capabilities listed in requires", "'\(key)', which is not required")
        }
        let operations = try decodeOperations(doc, checking: !passedBefore, fail: fail)
        // An operation that moves a file's bytes needs the files capability (docs/files.md).
        if let i = operations.firstIndex(where: { $0.file != nil }), !requires.contains(where: { $0.capability == "files" }) {
            throw fail("$.operations[\(i)].file", "the files capability in requires", "'\(operations[i].file!.rawValue)' without it")
        }
        let jobs = try decodeJobs(doc, fail: fail)
        var configSchema: SchemaOnFirstUse?
        if let config = doc["config"] {
            configSchema = passedBefore ? SchemaOnFirstUse(deferred: config)
                                        : SchemaOnFirstUse(compiled: try compile(config, at: "$.config", fail: fail))
        }
        let library = doc["library"]!
        return PluginManifest(
            id: doc["id"]!.stringValue!,
            name: doc["name"]!.stringValue!,
            summary: doc["description"]?.stringValue,
            version: version,
            sdkABI: (abiParts[0], abiParts[1]),
            toolchain: toolchain ?? "",
            library: LibraryReference(name: library["name"]?.stringValue, path: library["path"]?.stringValue,
                                      sha256: library["sha256"]?.stringValue),
            requires: requires,
            permissions: permissions,
            operations: operations,
            emits: doc["events"]?["emits"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [],
            consumes: doc["events"]?["consumes"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            jobs: jobs,
            configSchemaOnFirstUse: configSchema,
            stateSchema: doc["state"]?["schema"]?.integerValue.map(Int.init),
            stateMigratesFrom: doc["state"]?["migratesFrom"]?.arrayValue?.compactMap { $0.integerValue.map(Int.init) } ?? [],
            hotSwap: doc["hotSwap"]?.boolValue ?? false,
            isolation: Isolation(rawValue: doc["isolation"]?.stringValue ?? "inProcess") ?? .inProcess,
            ui: decodeUI(doc, file: file),
            file: file,
            document: doc,
            syncTables: try decodeSync(doc, requires: requires, fail: fail),
            syncRoles: try decodeSyncRoles(doc, fail: fail),
            abi: abi
        )
    }

    static func decodeRequirements(
        _ doc: JSONValue, fail: (String, String, String) -> ManifestError
    ) throws(ManifestError) -> [CapabilityRequirement] {
        var seen: Set<String> = []
        var out: [CapabilityRequirement] = []
        for (i, item) in (doc["requires"]?.arrayValue ?? []).enumerated() {
            let name = item["capability"]!.stringValue!
            guard seen.insert(name).inserted else {
                throw fail("$.requires[\(i)].capability", "each capability once", "'\(name)' again")
            }
            guard let range = VersionRange(item["version"]!.stringValue!) else {
                throw fail("$.requires[\(i)].version", "a version range such as ^1.0 or >=1.0 <2.0", item["version"]!.brief)
            }
            out.append(CapabilityRequirement(capability: name, versions: range, optional: item["optional"]?.boolValue ?? false))
        }
        return out
    }

    /// The operations; with `checking`, each input and output schema compiled now to be checked (a
    /// failure refuses the manifest). Either way each input schema is compiled again when first
    /// used and kept from then on: a deployment calls a few of its plugins' operations, and the
    /// compiled form of all of them held 1.4 MB in `tessera serve`.
    static func decodeOperations(
        _ doc: JSONValue, checking: Bool, fail: (String, String, String) -> ManifestError
    ) throws(ManifestError) -> [OperationDeclaration] {
        var seen: Set<String> = []
        var out: [OperationDeclaration] = []
        for (i, item) in (doc["operations"]?.arrayValue ?? []).enumerated() {
            let name = item["name"]!.stringValue!
            guard seen.insert(name).inserted else {
                throw fail("$.operations[\(i)].name", "a name not used by another operation", "'\(name)' again")
            }
            // Compiled here only to be checked: a first start then holds what a restart does,
            // the schemas of the operations called (docs/benchmarks.md, "What a first start held").
            if checking {
                _ = try compile(item["input"]!, at: "$.operations[\(i)].input", patterns: .checkedOnly, fail: fail)
                _ = try compile(item["output"]!, at: "$.operations[\(i)].output", patterns: .checkedOnly, fail: fail)
            }
            let input = SchemaOnFirstUse(deferred: item["input"]!)
            let roles = item["roles"]?.arrayValue?.compactMap(\.stringValue).map(Principal.Role.init(rawValue:))
            if roles?.contains(.link) == true, !LinkOperationRule.holds(input: item["input"]!, file: item["file"]) {
                throw fail("$.operations[\(i)]", LinkOperationRule.expected, "'\(name)' with input \(item["input"]!.brief)")
            }
            out.append(OperationDeclaration(
                name: name, summary: item["summary"]?.stringValue,
                inputSchemaDocument: item["input"]!, inputSchemaOnFirstUse: input,
                outputSchemaDocument: item["output"]!,
                roles: roles ?? [.user, .admin], timeoutSeconds: item["timeoutSeconds"]?.doubleValue,
                file: item["file"]?.stringValue.flatMap(FileTransfer.init(rawValue:))))
        }
        return out
    }

    /// A schema of the manifest compiled, or the manifest refused at `path`.
    static func compile(_ document: JSONValue, at path: String, patterns: PatternCompilation = .whenCompiled,
                        fail: (String, String, String) -> ManifestError) throws(ManifestError) -> JSONSchema {
        do { return try JSONSchema(document, patterns: patterns) } catch {
            throw fail(path, "a JSON Schema in the supported subset", error.description)
        }
    }

    /// The `ui` member, its folder made absolute against the manifest's folder.
    static func decodeUI(_ doc: JSONValue, file: String) -> UIDeclaration? {
        guard let ui = doc["ui"], let folder = ui["folder"]?.stringValue, let title = ui["title"]?.stringValue else { return nil }
        let absoluteFile = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        let base = (absoluteFile as NSString).deletingLastPathComponent
        var titles: [String: String] = [:]
        for (language, text) in ui["titles"]?.objectValue ?? [:] { titles[language] = text.stringValue }
        return UIDeclaration(folder: lexicallyNormalized(folder.hasPrefix("/") ? folder : base + "/" + folder), title: title, titles: titles)
    }

    /// `path` with `.`, `..` and repeated slashes resolved on the text alone. `URL(fileURLWithPath:)`
    /// asked the file system whether each path was a folder: 8% of a host's start.
    static func lexicallyNormalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    /// `sync.tables`: which tables sync, with their keep-conflicts columns. Syncing needs the
    /// `sync` capability in `requires` (the operator grants it, and names the hub).
    static func decodeSync(
        _ doc: JSONValue, requires: [CapabilityRequirement], fail: (String, String, String) -> ManifestError
    ) throws(ManifestError) -> [String: [String]] {
        guard let tables = doc["sync"]?["tables"]?.objectValue else { return [:] }
        guard requires.contains(where: { $0.capability == "sync" }) else {
            throw fail("$.sync", "a 'sync' entry in $.requires, since the manifest declares synced tables", "no such requirement")
        }
        return tables.mapValues { $0["keepConflicts"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    }

    /// `sync.roles`, already checked against the schema (names, hub roles, access values); here
    /// each table a role names must be one of `sync.tables`.
    static func decodeSyncRoles(
        _ doc: JSONValue, fail: (String, String, String) -> ManifestError
    ) throws(ManifestError) -> [String: SyncRoleDeclaration] {
        guard let roles = doc["sync"]?["roles"]?.objectValue else { return [:] }
        let synced = Set(doc["sync"]?["tables"]?.objectValue?.keys.map { $0 } ?? [])
        var out: [String: SyncRoleDeclaration] = [:]
        for name in roles.keys.sorted() {
            let role = roles[name]!
            var tables: [String: String] = [:]
            for (table, access) in role["tables"]?.objectValue ?? [:] {
                guard synced.contains(table) else {
                    throw fail("$.sync.roles.\(name).tables.\(table)", "a table listed in $.sync.tables", "'\(table)', which does not sync")
                }
                tables[table] = access.stringValue ?? "write"
            }
            out[name] = SyncRoleDeclaration(hubRole: role["hubRole"]?.stringValue ?? "viewer", tables: tables)
        }
        return out
    }

    static func decodeJobs(
        _ doc: JSONValue, fail: (String, String, String) -> ManifestError
    ) throws(ManifestError) -> [JobDeclaration] {
        var out: [JobDeclaration] = []
        for (i, item) in (doc["jobs"]?.arrayValue ?? []).enumerated() {
            guard let seconds = DurationText.seconds(item["every"]!.stringValue!), seconds > 0 else {
                throw fail("$.jobs[\(i)].every", "a positive duration such as 1d or 2h30m", item["every"]!.brief)
            }
            out.append(JobDeclaration(name: item["name"]!.stringValue!, everySeconds: seconds))
        }
        return out
    }
}
