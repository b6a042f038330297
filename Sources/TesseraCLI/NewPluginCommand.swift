import ArgumentParser
import Foundation
import TesseraLoader
import TesseraSDK

/// `tessera new-plugin NAME [--dir D] [--id ID] [--sdk PATH | --sdk-url URL]`: writes a plugin package
/// that builds on its own with `swift build`, from the templates in ``PluginTemplate``.
struct NewPlugin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new-plugin",
        abstract: "Create a plugin package: Package.swift, a plugin with two storage-backed operations, its manifest, its tests, a README.",
        discussion: """
            Creates the folder D/NAME (it must not exist, or be empty). By default the package names the sdk folder of \
            the repository this tessera was built in by path; an SDK exported by `tessera sdk export` (--sdk DIR) or \
            published from one (--sdk-url URL) is named by URL and version, `from: "\(SDKExport.version)"`. Its tests \
            run the plugin in the host through this tessera's command (the SDK's TesseraPluginTesting). Build it with \
            `swift build`, and test it with `swift test`, in that folder.
            """)

    @Argument(help: "The plugin's product name, a Swift identifier such as Notes (its library is lib<NAME>.so).")
    var name: String
    @Option(name: .long, help: "The folder to create the package in (default: the current folder).")
    var dir: String?
    @Option(name: .long, help: "The plugin id (default: com.example.<lowercased name>).")
    var id: String?
    @Option(name: .long, help: "The SDK package folder (default: the sdk folder of the repository this tessera was built in).")
    var sdk: String?
    @Option(name: .customLong("sdk-url"), help: "The git URL of an exported SDK (`tessera sdk export`), named by version.")
    var sdkURL: String?

    func run() async throws {
        try await reportingErrors {
            try PluginTemplate.validate(name: name)
            let pluginID = id ?? PluginTemplate.defaultID(for: name)
            try PluginTemplate.validate(id: pluginID, derived: id == nil)
            let sdkReference = try PluginTemplate.sdkReference(folder: sdk, url: sdkURL)
            let folder = PluginTemplate.absolute(((dir ?? ".") as NSString).appendingPathComponent(name))
            try PluginTemplate.checkEmpty(folder)

            let files = PluginTemplate.files(name: name, id: pluginID, sdk: sdkReference, tessera: PluginTemplate.executablePath ?? "tessera")
            do {
                for (path, text) in files {
                    let full = (folder as NSString).appendingPathComponent(path)
                    try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                            withIntermediateDirectories: true)
                    try Data(text.utf8).write(to: URL(fileURLWithPath: full), options: .atomic)
                }
            } catch {
                throw CLIError(code: .failure, message: "cannot write the package in \(folder): \(error.localizedDescription)")
            }

            let tessera = PluginTemplate.executablePath ?? "tessera"
            say("created plugin \(pluginID) in \(folder) (SDK: \(sdkReference.description)):")
            for (path, _) in files { say("  \(path)") }
            say("""
                next:
                  cd \(PluginTemplate.shellQuoted(folder))
                  swift build
                  \(PluginTemplate.shellQuoted(tessera)) plugins verify .build/debug/lib\(name).so --manifest manifest.json --load
                  swift test
                README.md shows how to run it in a host.
                """)
        }
    }
}

/// The files of a new plugin package, as templates with `{{PLACEHOLDER}}`s, and the checks on what
/// fills them.
enum PluginTemplate {
    // MARK: Checks

    /// Names that would clash with a module the plugin imports, or that Swift reserves.
    static let reservedNames: Set<String> = [
        "TesseraSDK", "TesseraPluginStamp", "CTesseraABI", "Swift", "Foundation", "Plugin",
        "Any", "Self", "Type", "as", "associatedtype", "break", "case", "catch", "class", "continue", "default",
        "defer", "deinit", "do", "else", "enum", "extension", "fallthrough", "false", "for", "func", "guard", "if",
        "import", "in", "init", "inout", "internal", "is", "let", "nil", "operator", "private", "protocol", "public",
        "repeat", "return", "self", "static", "struct", "subscript", "super", "switch", "throw", "throws", "true",
        "try", "typealias", "var", "where", "while",
    ]

    /// A product name: an ASCII Swift identifier (`Notes`, `MyNotes`, `notes_2`), which also satisfies
    /// the manifest's `library.name` pattern.
    static func validate(name: String) throws {
        let letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
        guard let first = name.first, letters.contains(first), name.count <= 64,
              name.allSatisfy({ letters.contains($0) || ("0"..."9").contains($0) }) else {
            throw CLIError(code: .invalidInput, message: "NAME: expected a Swift identifier of at most 64 ASCII letters, digits and _, not starting with a digit (such as Notes), found '\(name)'")
        }
        guard !reservedNames.contains(name) else {
            throw CLIError(code: .invalidInput, message: "NAME: expected a name that is not a Swift keyword or a module the plugin imports, found '\(name)'")
        }
    }

    /// `com.example.<name in lowercase, _ as ->`.
    static func defaultID(for name: String) -> String {
        "com.example." + name.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// The manifest schema's pattern for `id`.
    static let idPattern = #"^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*$"#

    static func validate(id: String, derived: Bool) throws {
        let regex = try! NSRegularExpression(pattern: idPattern)
        let matches = regex.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) != nil
        guard matches, id.count <= 100 else {
            throw CLIError(code: .invalidInput, message: "\(derived ? "id (derived from NAME)" : "--id"): expected lowercase dot-separated words of a-z, 0-9 and - (\(idPattern)), at most 100 characters, found '\(id)'\(derived ? "; pass --id" : "")")
        }
    }

    /// The folder must not exist, or be an empty folder.
    static func checkEmpty(_ folder: String, otherwise: String = "choose another NAME or --dir, or remove it") throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else { return }
        let contents = isDirectory.boolValue ? (try? FileManager.default.contentsOfDirectory(atPath: folder)) : nil
        guard let contents, contents.isEmpty else {
            throw CLIError(code: .failure, message: "\(folder) already exists and is not an empty folder: \(otherwise)")
        }
    }

    // MARK: The SDK a package names

    /// The Tessera repository the SDK folder is in, if it is a checkout's `sdk/` (an SDK exported
    /// by `tessera sdk export` has none around it).
    static func repository(besideSDK sdk: String) -> String? {
        let repository = (sdk as NSString).deletingLastPathComponent
        return FileManager.default.fileExists(atPath: repository + "/Sources/TesseraTesting") ? repository : nil
    }

    // MARK: Paths

    /// The running `tessera` executable's real path.
    static var executablePath: String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") }

    /// `--sdk`, checked; else the `sdk` folder of the repository the running executable was built in.
    static func sdkFolder(option: String?) throws -> String {
        if let option {
            let path = absolute(option)
            guard isSDKPackage(path) else {
                throw CLIError(code: .invalidInput, message: "--sdk: expected the Tessera SDK package (a folder whose Package.swift declares the TesseraSDK product), found \(path)")
            }
            return path
        }
        var dir = executablePath.map { ($0 as NSString).deletingLastPathComponent } ?? ""
        while !dir.isEmpty, dir != "/" {
            let candidate = (dir as NSString).appendingPathComponent("sdk")
            if FileManager.default.fileExists(atPath: candidate + "/Package.swift") { return candidate }
            dir = (dir as NSString).deletingLastPathComponent
        }
        throw CLIError(code: .failure, message: "cannot find the SDK package: no folder above \(executablePath ?? "this tessera") has sdk/Package.swift; pass --sdk PATH (the sdk folder of the Tessera repository)")
    }

    /// How the new package names the SDK: `--sdk-url`, or `--sdk` when it is an export (a git
    /// repository tagged with this SDK's version), by URL and version; else the folder by path.
    static func sdkReference(folder: String?, url: String?) throws -> SDKReference {
        if let url {
            guard folder == nil else { throw CLIError(code: .invalidInput, message: "--sdk and --sdk-url: give one of them, not both") }
            guard let parsed = URL(string: url), parsed.scheme != nil, !parsed.lastPathComponent.isEmpty, parsed.lastPathComponent != "/" else {
                throw CLIError(code: .invalidInput, message: "--sdk-url: expected the git URL of an exported SDK (such as https://example.org/tessera-sdk.git or file:///srv/tessera-sdk), found '\(url)'")
            }
            return .version(url: url, version: SDKExport.version)
        }
        let path = try sdkFolder(option: folder)
        if folder != nil, repository(besideSDK: path) == nil, SDKExport.isTagged(path) {
            return .export(at: path)
        }
        return .path(path)
    }

    static func isSDKPackage(_ path: String) -> Bool {
        guard let text = FileManager.default.contents(atPath: path + "/Package.swift") else { return false }
        return String(decoding: text, as: UTF8.self).contains(#""TesseraSDK""#)
    }

    /// `path` made absolute against the current folder, with `.` and `..` removed.
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }

    static func shellQuoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+=:,@".contains($0) }
            ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `text` inside a Swift or JSON string literal.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: #"\"#, with: #"\\"#).replacingOccurrences(of: #"""#, with: #"\""#)
    }

    // MARK: Files

    /// The package's files (path relative to the package folder, text), in the order they are listed.
    static func files(name: String, id: String, sdk: SDKReference, tessera: String) -> [(String, String)] {
        // The manifest's `$schema` points into the repository the SDK folder is in, when there is one.
        let repository = sdk.repository
        let schema = (repository ?? "") + "/manifests/schema/plugin-manifest.schema.json"
        let values = [
            "NAME": name,
            "ID": id,
            "SDK_DEPENDENCY": sdk.dependency,
            "SDK_PACKAGE": escaped(sdk.packageName),
            "SDK_WHERE": sdk.readmeDescription,
            "TESSERA": tessera,
            "ABI": "\(SDKVersion.loadedMajor).\(SDKVersion.loadedMinor)",
            "TOOLCHAIN": HostIdentity.current.swiftVersion,
            "TESSERA_LITERAL": escaped(tessera),
            "SCHEMA": repository != nil && FileManager.default.fileExists(atPath: schema)
                ? "\n  \"$schema\": \"\(escaped(URL(fileURLWithPath: schema).absoluteString))\"," : "",
        ]
        func fill(_ template: String) -> String {
            values.reduce(template) { text, pair in text.replacingOccurrences(of: "{{\(pair.key)}}", with: pair.value) }
        }
        return [
            ("Package.swift", fill(packageSwift)),
            ("Sources/\(name)/\(name)Plugin.swift", fill(pluginSwift)),
            ("Tests/\(name)Tests/\(name)Tests.swift", fill(testsSwift)),
            ("manifest.json", fill(manifestJSON)),
            ("README.md", fill(readme)),
            (".gitignore", gitignore),
            (".swift-version", fill("{{TOOLCHAIN}}\n")),
        ]
    }

    static let packageSwift = #"""
        // swift-tools-version:6.0
        // {{NAME}}: a Tessera plugin. `swift build` makes .build/debug/lib{{NAME}}.so, `swift test` runs its
        // tests; README.md says what next.
        import PackageDescription

        let package = Package(
            name: "{{NAME}}",
            products: [
                // The plugin: a shared library, lib{{NAME}}.so. manifest.json names it ("library": {"name": "{{NAME}}"}).
                .library(name: "{{NAME}}", type: .dynamic, targets: ["{{NAME}}"]),
            ],
            dependencies: [
                // The Tessera SDK package. The host and its plugins must be built from the same SDK
                // sources with the same Swift ({{TOOLCHAIN}}): Linux has no Swift ABI stability.
                {{SDK_DEPENDENCY}},
            ],
            targets: [
                .target(name: "{{NAME}}", dependencies: [
                    // The one shared SDK library, libTesseraSDK.so: link it, never copy its sources in
                    // (the host refuses a plugin that carries its own copy of the SDK).
                    .product(name: "TesseraSDK", package: "{{SDK_PACKAGE}}"),
                    // The stamp the host reads before it loads anything: the SDK ABI and the compiler
                    // this plugin was built with.
                    .product(name: "TesseraPluginStamp", package: "{{SDK_PACKAGE}}"),
                ]),
                // Its tests: the plugin as the host runs it, through the host's command (TesseraPluginTesting).
                .testTarget(name: "{{NAME}}Tests", dependencies: [
                    "{{NAME}}", .product(name: "TesseraPluginTesting", package: "{{SDK_PACKAGE}}"),
                ]),
            ],
            swiftLanguageModes: [.v6]
        )

        """#

    static let testsSwift = #"""
        // {{NAME}}'s tests: the plugin as the host runs it. Each test gets a deployment of this plugin
        // alone, a data directory of its own and a virtual clock that starts at 2026-01-01T00:00:00Z and
        // moves only when the test moves it; each call runs the host's command (`tessera call`) on the
        // library `swift test` has just built. `swift test` runs them.
        //
        // The host is $TESSERA if set, else the tessera that made this package. With
        // TESSERA_TEST_ISOLATION=process it runs the plugin in its process tier (a child process,
        // every capability call across a socket).

        import Foundation
        import Testing
        import TesseraPluginTesting
        import TesseraSDK

        /// manifest.json, found from this file's path, so that the tests run from any folder.
        let manifest = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("manifest.json").path

        /// The tessera that made this package.
        let tessera = "{{TESSERA_LITERAL}}"

        @Test func itemsAreListedNewestFirstWithTheHostsTime() async throws {
            let host = try await HostedPlugin(manifest: manifest, tessera: tessera)
            let first = try await host.call("add-item", ["text": "buy milk"])
            #expect(first["createdAt"] == "2026-01-01T00:00:00Z")
            try await host.advanceClock(by: "1h")  // an hour later, on the virtual clock
            try await host.call("add-item", ["text": "call the bank"])
            let items = try await host.call("list-items")["items"]?.arrayValue ?? []
            #expect(items.map { $0["text"] } == ["call the bank", "buy milk"])
            #expect(items.first?["createdAt"] == "2026-01-01T01:00:00Z")
            host.stop()
        }

        @Test func anEmptyItemIsRefusedByTheManifestsSchema() async throws {
            let host = try await HostedPlugin(manifest: manifest, tessera: tessera)
            let refusal = await #expect(throws: PluginError.self) { try await host.call("add-item", ["text": ""]) }
            #expect(refusal?.field == "$.text")
            host.stop()
        }

        """#

    static let pluginSwift = #"""
        // {{NAME}}: a Tessera plugin. Start reading here.
        //
        // A plugin is this shared library (lib{{NAME}}.so) plus a manifest (manifest.json). The host reads
        // the manifest without running any code: the plugin's id, the capabilities it needs (here
        // `storage`, its own SQLite database, and `clock`, the host's time) and its operations, with
        // JSON Schemas for their input.
        // Then it checks the library, loads it, calls `tessera_plugin_entry` (at the bottom of this file)
        // to get the plugin, applies its migrations and starts it.
        //
        // To add an operation: declare it in manifest.json (name, input and output schemas), then
        // register a handler for it in `start(context:)` below. The host checks every call's input
        // against the schema before a handler sees it.

        import Foundation
        import TesseraSDK

        /// The plugin. The host makes one instance, migrates the plugin's database, then calls
        /// `start(context:)` once. Keep no data in the instance: it lives in storage.
        final class {{NAME}}Plugin: Plugin {
            /// The database schema, one step per version, applied by the host in order before `start`.
            /// Versions start at 1. A shipped step never changes: to change the schema, add a step
            /// (version 2, ...). A table written with `storage.write` needs a text primary key named `id`.
            var migrations: [StorageMigration] {
                [
                    StorageMigration(version: 1, sql: """
                        CREATE TABLE items (id TEXT PRIMARY KEY, text TEXT NOT NULL, created_at TEXT NOT NULL);
                        """),
                ]
            }

            /// Takes the capabilities the operator granted and registers one handler per operation of
            /// the manifest. A throw here leaves the plugin `failed`, with the error as its reason.
            func start(context: PluginContext) async throws {
                // Throws `notGranted` if the deployment does not grant storage and the clock to this plugin.
                let items = Items(storage: try context.capability(.storage), clock: try context.capability(.clock))

                // Typed handlers: the input JSON (already valid against the manifest's schema) is
                // decoded into the Input type, and what the handler returns is encoded as the result.
                context.onOperation("add-item", input: NewItem.self) { input, _ in
                    try await items.add(input.text)
                }
                context.onOperation("list-items", input: ListItems.self) { input, _ in
                    try await items.list(limit: input.limit ?? 50)
                }
                context.log.info("started")
            }
        }

        /// The plugin's logic, apart from registration.
        struct Items: Sendable {
            let storage: any PluginStorage
            /// The host's clock, never the wall clock: under a virtual clock (`tessera clock advance`)
            /// the plugin's dates follow it.
            let clock: any HostClock

            /// Writes go through the record API (put, patch, delete), applied in one transaction, so
            /// that the host sees every change. A new row's id is time-ordered, so new rows sit side by
            /// side at the end of the table's id index however large it grows.
            func add(_ text: String) async throws -> Saved {
                let instant = clock.now()
                let id = RecordID.timeOrdered(at: instant)
                let now = instant.formatted(.iso8601)
                try await storage.write { batch in
                    batch.put("items", id: id, ["text": .text(text), "created_at": .text(now)])
                }
                return Saved(id: id, createdAt: now)
            }

            /// Reads are read-only SQL on the plugin's own database, with `?` parameters.
            func list(limit: Int) async throws -> ItemList {
                let rows = try await storage.query(
                    "SELECT id, text, created_at FROM items ORDER BY created_at DESC, id LIMIT ?", [.integer(Int64(limit))])
                return ItemList(items: rows.map { row in
                    Item(id: row["id"].text ?? "", text: row["text"].text ?? "", createdAt: row["created_at"].text ?? "")
                })
            }
        }

        // The operations' input and output. Keep them in step with the schemas in manifest.json.
        struct NewItem: Decodable, Sendable { let text: String }
        struct ListItems: Decodable, Sendable { let limit: Int? }
        struct Saved: Encodable, Sendable { let id: String; let createdAt: String }
        struct Item: Encodable, Sendable { let id: String; let text: String; let createdAt: String }
        struct ItemList: Encodable, Sendable { let items: [Item] }

        /// The one symbol the host looks up in the library. It answers with the plugin's id, which must
        /// equal manifest.json's "id", and a factory the host calls to make the plugin. The SDK ABI
        /// version it reports comes from the stamp linked in from TesseraPluginStamp.
        @_cdecl("tessera_plugin_entry")
        public func tesseraPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
            PluginExport.descriptor(id: "{{ID}}") { {{NAME}}Plugin() }
        }

        """#

    static let manifestJSON = #"""
        {{{SCHEMA}}
          "id": "{{ID}}",
          "name": "{{NAME}}",
          "description": "Items kept in the plugin's own database.",
          "version": "0.1.0",
          "sdk": { "abi": "{{ABI}}", "toolchain": "{{TOOLCHAIN}}" },
          "library": { "name": "{{NAME}}" },
          "requires": [
            { "capability": "storage", "version": "^1.0" },
            { "capability": "clock", "version": "^1.0" }
          ],
          "permissions": {
            "storage": { "quotaMB": 50 }
          },
          "operations": [
            {
              "name": "add-item", "summary": "Save an item.",
              "input": {
                "type": "object", "required": ["text"], "additionalProperties": false,
                "properties": { "text": { "type": "string", "minLength": 1, "maxLength": 1000 } }
              },
              "output": {
                "type": "object", "required": ["id", "createdAt"],
                "properties": { "id": { "type": "string" }, "createdAt": { "type": "string", "format": "date-time" } }
              }
            },
            {
              "name": "list-items", "summary": "The newest items first.",
              "input": {
                "type": "object", "additionalProperties": false,
                "properties": { "limit": { "type": "integer", "minimum": 1, "maximum": 500 } }
              },
              "output": {
                "type": "object", "required": ["items"],
                "properties": { "items": { "type": "array", "items": { "type": "object" } } }
              }
            }
          ],
          "state": { "schema": 1 },
          "hotSwap": true,
          "isolation": "inProcess"
        }

        """#

    static let readme = #"""
        # {{NAME}}

        A Tessera plugin, `{{ID}}`, made by `tessera new-plugin`. It keeps items in its own database (the
        `storage` capability) and has two operations, `add-item` and `list-items`.

        | File | What |
        | --- | --- |
        | `Sources/{{NAME}}/{{NAME}}Plugin.swift` | the plugin: its migrations, its operation handlers, the entry symbol |
        | `manifest.json` | what the host reads before loading any code: id, capabilities, operations and their JSON Schemas |
        | `Package.swift` | builds `lib{{NAME}}.so`, linking the Tessera SDK package {{SDK_WHERE}} |
        | `Tests/{{NAME}}Tests/{{NAME}}Tests.swift` | its tests: the plugin as the host runs it, on a virtual clock (`TesseraPluginTesting`) |

        It needs Swift {{TOOLCHAIN}} exactly, the compiler the host was built with. Below, `tessera` is the
        host's command ({{TESSERA}}).

        ## Build, verify and test

        ```sh
        swift build
        tessera plugins verify .build/debug/lib{{NAME}}.so --manifest manifest.json --load
        swift test
        ```

        `swift test` runs the tests in `Tests/`: each loads the library as the host does, with the
        capabilities its manifest requires and a virtual clock, and calls it through the host's command
        (`$TESSERA` if set, else {{TESSERA}}). The harness builds nothing of the host, so the first run
        takes seconds after `swift build`.

        `verify` runs the host's three gates on the library: the file (stamp, toolchain, a link to the
        shared SDK), `dlopen`, and the handshake (the entry symbol's id must equal the manifest's). A
        refusal is one line saying what to fix.

        ## Run it in a host

        Save this as `deployments/local.json` (its paths are relative to that file: manifests from this
        folder, libraries from `.build/debug`):

        ```json
        {
          "name": "local",
          "role": "device",
          "dataDirectory": ".tessera/local",
          "manifestDirectories": [".."],
          "libraryPaths": ["../.build/debug"],
          "providers": { "storage": { "kind": "sqlite" }, "clock": { "kind": "system" } },
          "plugins": [
            { "id": "{{ID}}", "version": "^0.1", "grants": { "storage": {}, "clock": {} } }
          ]
        }
        ```

        Then, from this folder:

        ```sh
        export TESSERA_DEPLOYMENT=deployments/local.json
        tessera call {{ID}} add-item '{"text": "first item"}'
        tessera call {{ID}} list-items
        tessera plugins why {{ID}}      # if it is not active: every step, and what stopped it
        tessera serve
        ```

        Each command loads the library as it is now: after a change, `swift build` and call again. To
        add an operation, declare it in `manifest.json` and register its handler in `start(context:)`;
        to change the database, add a migration.

        """#

    static let gitignore = """
        .build/
        Package.resolved
        .tessera/

        """
}

/// How a plugin's package names the SDK package.
enum SDKReference {
    /// A folder, by path: a checkout's `sdk/`, or any copy.
    case path(String)
    /// An export (`tessera sdk export`) at a git URL, by version, as SwiftPM users name packages:
    /// `from:` takes any later minor of the same major, which only adds to the SDK.
    case version(url: String, version: String)

    /// An export in a local folder, named by its `file://` URL and this SDK's version.
    static func export(at folder: String) -> SDKReference {
        // Not a directory URL: SwiftPM would keep its trailing slash in the package's text.
        .version(url: URL(fileURLWithPath: folder, isDirectory: false).absoluteString, version: SDKExport.version)
    }

    /// The line in the package's `dependencies`.
    var dependency: String {
        switch self {
        case .path(let path): #".package(name: "TesseraSDK", path: "\#(PluginTemplate.escaped(path))")"#
        case .version(let url, let version): #".package(url: "\#(PluginTemplate.escaped(url))", from: "\#(version)")"#
        }
    }

    /// What `.product(name:package:)` calls the package: its name when named by path, else
    /// SwiftPM's identity of the URL (its last part, without `.git`, in lowercase).
    var packageName: String {
        switch self {
        case .path: return "TesseraSDK"
        case .version(let url, _):
            let last = URL(string: url)?.lastPathComponent ?? url
            return (last.hasSuffix(".git") ? String(last.dropLast(4)) : last).lowercased()
        }
    }

    /// The Tessera repository around the SDK folder, if any.
    var repository: String? {
        if case .path(let path) = self { return PluginTemplate.repository(besideSDK: path) }
        return nil
    }

    /// For the command's output.
    var description: String {
        switch self {
        case .path(let path): path
        case .version(let url, let version): "\(url), from version \(version)"
        }
    }

    /// For the package's README table.
    var readmeDescription: String {
        switch self {
        case .path(let path): "at `\(path)`"
        case .version(let url, let version): "from `\(url)`, version \(version) or a later one with the same major"
        }
    }
}
