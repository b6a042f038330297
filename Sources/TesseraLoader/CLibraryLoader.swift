import Foundation
import TesseraSDK

/// A C-ABI plugin's function table (`tessera_plugin_api_t`, `tessera_plugin.h`), checked at gate 3.
///
/// The table lives as long as the library, which is never unloaded; what it declares is read once
/// here: its id and its database's schema steps.
public struct CPluginTable: @unchecked Sendable {
    /// The table the entry symbol returned.
    public let api: UnsafePointer<tessera_plugin_api_t>
    /// The id the plugin reported.
    public let pluginID: String
    /// Its database's schema steps (`migrations`), applied by the host before `start`.
    public let migrations: [StorageMigration]
}

/// Gates 2 and 3 for a C-ABI plugin: its entry symbol, and the table it answers.
public enum CLibraryLoader {
    /// Gate 2: `dlopen` as for a Swift plugin (``LibraryLoader/open(stagedPath:)``), then the C
    /// entry symbol.
    public static func open(stagedPath: String) throws(GateRefusal) -> (UnsafeMutableRawPointer, tessera_c_entry_fn) {
        let handle = try LibraryLoader.map(stagedPath)
        guard let symbol = dlsym(handle, TESSERA_C_ENTRY_SYMBOL) else {
            throw GateRefusal(gate: 2, field: "entry", expected: "the exported symbol \(TESSERA_C_ENTRY_SYMBOL)", found: "no such symbol",
                              hint: "export it with default visibility (tessera_plugin.h; in Rust, #[no_mangle] pub extern \"C\")")
        }
        return (handle, unsafeBitCast(symbol, to: tessera_c_entry_fn.self))
    }

    /// Gate 3: calls the entry with the host's C ABI version and checks the table: its magic and
    /// size, a C ABI major equal to the host's and a minor no newer, the manifest's id, every
    /// function present, and schema steps that parse.
    public static func handshake(entry: tessera_c_entry_fn, expectedID: String?, host: HostIdentity) throws(GateRefusal) -> Handshake {
        guard let api = entry(host.cABIMajor, host.cABIMinor) else {
            throw GateRefusal(gate: 3, field: "table", expected: "a tessera_plugin_api_t",
                              found: "NULL from \(TESSERA_C_ENTRY_SYMBOL) (the plugin does not speak C ABI \(host.cABIMajor).\(host.cABIMinor))")
        }
        let t = api.pointee
        guard t.magic == TESSERA_C_PLUGIN_MAGIC, Int(t.size) >= MemoryLayout<tessera_plugin_api_t>.offset(of: \.reserved)! else {
            throw GateRefusal(gate: 3, field: "table", expected: "a tessera_plugin_api_t", found: "magic 0x\(String(t.magic, radix: 16)), size \(t.size)")
        }
        if t.c_abi_major != host.cABIMajor {
            throw GateRefusal(gate: 3, field: "c.abi.major", expected: "\(host.cABIMajor) (host)", found: "\(t.c_abi_major) (plugin)")
        }
        if t.c_abi_minor > host.cABIMinor {
            throw GateRefusal(gate: 3, field: "c.abi.minor", expected: "at most \(host.cABIMinor) (host)", found: "\(t.c_abi_minor) (plugin)")
        }
        let id = t.plugin_id.map { String(cString: $0) } ?? ""
        if let expectedID, id != expectedID {
            throw GateRefusal(gate: 3, field: "id", expected: "\(expectedID) (manifest)", found: "\(id) (plugin)")
        }
        let missing = missingFunctions(t)
        guard missing.isEmpty else {
            throw GateRefusal(gate: 3, field: "table", expected: "every function of tessera_plugin_api_t", found: "NULL \(missing.joined(separator: ", "))")
        }
        let migrations = try readMigrations(t.migrations)
        return Handshake(pluginID: id, reportedABI: (t.c_abi_major, t.c_abi_minor),
                         code: .c(CPluginTable(api: api, pluginID: id, migrations: migrations)))
    }

    /// The required functions the table leaves NULL, by name.
    static func missingFunctions(_ t: tessera_plugin_api_t) -> [String] {
        let present: [(String, Bool)] = [
            ("create", t.create != nil), ("start", t.start != nil), ("handle", t.handle != nil), ("receive", t.receive != nil),
            ("export_state", t.export_state != nil), ("import_state", t.import_state != nil), ("stop", t.stop != nil),
            ("destroy", t.destroy != nil), ("free_buffer", t.free_buffer != nil),
        ]
        return present.filter { !$0.1 }.map(\.0)
    }

    /// `migrations`: NULL, or JSON `[{"version": n, "sql": "…"}]`.
    static func readMigrations(_ text: UnsafePointer<CChar>?) throws(GateRefusal) -> [StorageMigration] {
        guard let text else { return [] }
        let refusal = { (found: String) in
            GateRefusal(gate: 3, field: "migrations", expected: "JSON [{\"version\": 1, \"sql\": \"CREATE TABLE …\"}, …]", found: found)
        }
        let json: JSONValue
        do { json = try JSONValue(parsing: String(cString: text)) } catch { throw refusal("\(error)") }
        guard let steps = json.arrayValue else { throw refusal(String(json.serialized().prefix(80))) }
        var out: [StorageMigration] = []
        for step in steps {
            guard let version = step["version"]?.integerValue, let sql = step["sql"]?.stringValue else {
                throw refusal(String(step.serialized().prefix(80)))
            }
            out.append(StorageMigration(version: Int(version), sql: sql))
        }
        return out
    }
}
