import Foundation
import TesseraManifest
import TesseraSDK

/// A plugin library that passed gate 1: what the host read from the file without loading it.
public struct VerifiedLibrary: Sendable, Hashable {
    /// The file checked (for a loaded plugin, its content-addressed copy).
    public let path: String
    /// Its sha256, lowercase hex: also the name of its content-addressed copy.
    public let sha256: String
    /// The stamp compiled into it.
    public let stamp: PluginStamp
    /// The linker's build id (NT_GNU_BUILD_ID), when present.
    public let buildID: String?
    /// Its size in bytes.
    public let size: Int
}

/// Gate 1: checks a plugin library file before any of its code runs.
///
/// In order: the file is a readable 64-bit ELF; its sha256 matches the manifest's pin; it carries a
/// `tessera_stamp` section for this host's SDK major, an SDK minor no newer than the host's, and
/// the host's compiler; and it links the shared `libTesseraSDK.so` rather than embedding a copy.
public enum FileGate {
    /// The mangling prefix of symbols defined in the TesseraSDK module.
    static let sdkSymbolPrefix = "$s10TesseraSDK"

    /// The type descriptors of a few of the SDK's core types. Only a copy of the SDK defines these;
    /// a plugin that merely extends an SDK type defines symbols under the SDK's prefix too
    /// (`(extension in MyPlugin):TesseraSDK.JSONValue…`), and must not be refused for it.
    static let sdkTypeDescriptors = ["$s10TesseraSDK9JSONValueOMn", "$s10TesseraSDK13PluginContextCMn",
                                     "$s10TesseraSDK11PluginErrorVMn", "$s10TesseraSDK17GrantedCapabilityVMn"]

    /// Gate 1 on the file at `path`, read from disk.
    ///
    /// - Parameter knownSHA256: the file's hash when the caller has it already (a staged copy is
    ///   named by it), so the file is not read twice.
    public static func verify(
        path: String, knownSHA256: String? = nil, manifest: PluginManifest?, host: HostIdentity
    ) throws(GateRefusal) -> VerifiedLibrary {
        let facts = try LibraryFacts(path: path)
        let sha256: String
        if let knownSHA256 {
            sha256 = knownSHA256
        } else {
            do { sha256 = try SHA256.hash(file: path) } catch {
                throw GateRefusal(gate: 1, field: "library", expected: "a readable file", found: "\(path): \(error)")
            }
        }
        return try judge(facts, path: path, sha256: sha256, manifest: manifest, host: host)
    }

    /// Gate 1 on a staged copy, from the facts its staging read from it or found in the stage
    /// index: no file is read again.
    public static func verify(_ staged: StagedLibrary, manifest: PluginManifest?, host: HostIdentity) throws(GateRefusal) -> VerifiedLibrary {
        try judge(staged.facts.get(), path: staged.path, sha256: staged.sha256, manifest: manifest, host: host)
    }

    /// The checks, in order: the manifest's pin, the stamp, the link lint.
    static func judge(
        _ facts: LibraryFacts, path: String, sha256: String, manifest: PluginManifest?, host: HostIdentity
    ) throws(GateRefusal) -> VerifiedLibrary {
        if let pinned = manifest?.library.sha256, pinned != sha256 {
            throw GateRefusal(gate: 1, field: "library.sha256", expected: pinned, found: sha256,
                              hint: "the file is not the build the manifest pins; rebuild or update the pin")
        }
        let stamp = try readStamp(facts)
        if stamp.isCABI || manifest?.abi == .c {
            // A C-ABI plugin links nothing of the host's: its stamp's C ABI version is what matters.
            try checkCStamp(stamp, manifest: manifest, host: host)
        } else {
            try checkStamp(stamp, manifest: manifest, host: host)
            try lint(facts)
        }
        return VerifiedLibrary(path: path, sha256: sha256, stamp: stamp, buildID: facts.buildID, size: facts.size)
    }

    static func readStamp(_ facts: LibraryFacts) throws(GateRefusal) -> PluginStamp {
        guard let bytes = facts.stampSection else {
            throw GateRefusal(gate: 1, field: "stamp", expected: "a tessera_stamp section", found: "none",
                              hint: "link the SDK's TesseraPluginStamp product into the plugin")
        }
        do { return try PluginStamp(bytes: bytes) } catch {
            throw GateRefusal(gate: 1, field: "stamp", expected: "a valid stamp record", found: "\(error)")
        }
    }

    static func checkStamp(_ stamp: PluginStamp, manifest: PluginManifest?, host: HostIdentity) throws(GateRefusal) {
        if stamp.sdkABIMajor != host.sdkABIMajor {
            throw GateRefusal(gate: 1, field: "sdk.abi.major", expected: "\(host.sdkABIMajor) (host)",
                              found: "\(stamp.sdkABIMajor) (plugin)", hint: "rebuild the plugin against this host's SDK")
        }
        if stamp.sdkABIMinor > host.sdkABIMinor {
            throw GateRefusal(gate: 1, field: "sdk.abi.minor", expected: "at most \(host.sdkABIMinor) (host)",
                              found: "\(stamp.sdkABIMinor) (plugin)", hint: "the plugin needs a newer host; upgrade the host")
        }
        if stamp.toolchain != host.toolchain {
            throw GateRefusal(gate: 1, field: "toolchain", expected: "\(host.toolchain) (host)", found: "\(stamp.toolchain) (plugin)",
                              hint: "build the plugin with Swift \(host.swiftVersion), the toolchain this host is pinned to")
        }
        guard let manifest else { return }
        if manifest.sdkABI != (stamp.sdkABIMajor, stamp.sdkABIMinor) {
            throw GateRefusal(gate: 1, field: "manifest sdk.abi", expected: "\(stamp.sdkABIMajor).\(stamp.sdkABIMinor) (the library's stamp)",
                              found: "\(manifest.sdkABI.major).\(manifest.sdkABI.minor) (manifest)",
                              hint: "the manifest does not describe this build")
        }
        if manifest.toolchain != host.swiftVersion {
            throw GateRefusal(gate: 1, field: "manifest sdk.toolchain", expected: "\(host.swiftVersion) (host)",
                              found: "\(manifest.toolchain) (manifest)")
        }
    }

    /// A C-ABI plugin's stamp (`tessera_plugin.h`): the library is one, as its manifest says; its C
    /// ABI major is the host's and its minor no newer; the manifest names the same version.
    static func checkCStamp(_ stamp: PluginStamp, manifest: PluginManifest?, host: HostIdentity) throws(GateRefusal) {
        guard stamp.isCABI else {
            throw GateRefusal(gate: 1, field: "abi", expected: "a C-ABI library (its stamp names no compiler and carries a C ABI version)",
                              found: "a Swift plugin's stamp (\(stamp.toolchain.isEmpty ? "no C ABI version" : stamp.toolchain))",
                              hint: "write TESSERA_C_PLUGIN_STAMP in the plugin (tessera_plugin.h), or drop \"abi\": \"c\" from a Swift plugin's manifest")
        }
        if let manifest, manifest.abi != .c {
            throw GateRefusal(gate: 1, field: "abi", expected: "a Swift plugin (the manifest says so)", found: "a C-ABI library",
                              hint: "set \"abi\": \"c\" in the manifest")
        }
        if stamp.cABIMajor != host.cABIMajor {
            throw GateRefusal(gate: 1, field: "c.abi.major", expected: "\(host.cABIMajor) (host)", found: "\(stamp.cABIMajor) (plugin)",
                              hint: "rebuild the plugin against this host's tessera_plugin.h")
        }
        if stamp.cABIMinor > host.cABIMinor {
            throw GateRefusal(gate: 1, field: "c.abi.minor", expected: "at most \(host.cABIMinor) (host)", found: "\(stamp.cABIMinor) (plugin)",
                              hint: "the plugin needs a newer host; upgrade the host")
        }
        if let manifest, manifest.sdkABI != (stamp.cABIMajor, stamp.cABIMinor) {
            throw GateRefusal(gate: 1, field: "manifest sdk.abi", expected: "\(stamp.cABIMajor).\(stamp.cABIMinor) (the library's C ABI)",
                              found: "\(manifest.sdkABI.major).\(manifest.sdkABI.minor) (manifest)", hint: "the manifest does not describe this build")
        }
    }

    /// The link lint: a plugin must use the host's SDK and Swift runtime, never copies of them.
    static func lint(_ facts: LibraryFacts) throws(GateRefusal) {
        let embedded = facts.embeddedSDKTypes
        if embedded > 0 {
            throw GateRefusal(gate: 1, field: "link", expected: "no TesseraSDK types defined in the plugin",
                              found: "\(embedded) of the SDK's core types defined: the plugin embeds its own copy of the SDK, so no cast across the boundary would work",
                              hint: "depend on the SDK package's dynamic TesseraSDK product, not its sources or a static build")
        }
        if !facts.linksSharedSDK {
            throw GateRefusal(gate: 1, field: "link", expected: "NEEDED libTesseraSDK.so", found: "no dependency on the shared SDK",
                              hint: "depend on the SDK package's dynamic TesseraSDK product")
        }
        if !facts.linksSharedSwiftRuntime {
            throw GateRefusal(gate: 1, field: "link", expected: "NEEDED libswiftCore.so",
                              found: "no shared Swift runtime (built with -static-stdlib?)",
                              hint: "build the plugin without -static-stdlib: it must share the host's Swift runtime")
        }
    }
}
