import Foundation
import TesseraManifest
import TesseraSDK

/// A plugin build that passed all three gates: mapped, handshaken, with its factory in hand.
///
/// It is never unloaded: Swift images cannot be `dlclose`d safely (the runtime keeps pointers into
/// them). A replaced generation is retired and stays mapped.
public struct LoadedGeneration: @unchecked Sendable {
    /// What gate 1 read from the file.
    public let library: VerifiedLibrary
    /// The content-addressed copy that was loaded.
    public let stagedPath: String
    /// What the plugin answered at the handshake.
    public let handshake: Handshake
    /// The `dlopen` handle. Kept, never closed.
    let handle: UnsafeMutableRawPointer

    /// The id the plugin reported.
    public var pluginID: String { handshake.pluginID }
}

/// What a plugin's entry symbol answered, once checked.
public struct Handshake: @unchecked Sendable {
    /// The id the plugin reported.
    public let pluginID: String
    /// The ABI the plugin reported (compiled into it): the SDK's, or a C-ABI plugin's C ABI.
    public let reportedABI: (major: UInt32, minor: UInt32)
    /// What makes its instances.
    public let code: PluginCode

    /// A Swift plugin's factory; `nil` for a C-ABI plugin, whose instances the tier makes from its
    /// function table (``PluginCode/c(_:)``).
    public var swiftFactory: PluginFactory? {
        if case .swift(let factory) = code { return factory }
        return nil
    }
}

/// What a loaded library makes instances with.
public enum PluginCode: @unchecked Sendable {
    /// A Swift plugin: the SDK's ``PluginFactory`` it exported.
    case swift(PluginFactory)
    /// A C-ABI plugin: its function table (`tessera_plugin_api_t`).
    case c(CPluginTable)
}

/// Gates 2 and 3: load a verified library and shake hands with it.
public enum LibraryLoader {
    /// Gate 2: `dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)` of the staged copy and the entry symbol.
    ///
    /// `RTLD_NOW` turns a missing symbol into this error rather than a crash at the first call;
    /// `RTLD_LOCAL` keeps each generation's symbols apart; `RTLD_NODELETE` states that the image is
    /// never unmapped.
    public static func open(stagedPath: String) throws(GateRefusal) -> (UnsafeMutableRawPointer, tessera_entry_fn) {
        let handle = try map(stagedPath)
        guard let symbol = dlsym(handle, TESSERA_ENTRY_SYMBOL) else {
            throw GateRefusal(gate: 2, field: "entry", expected: "the exported symbol \(TESSERA_ENTRY_SYMBOL)", found: "no such symbol",
                              hint: "export it with @_cdecl(\"\(TESSERA_ENTRY_SYMBOL)\") returning PluginExport.descriptor(...)")
        }
        return (handle, unsafeBitCast(symbol, to: tessera_entry_fn.self))
    }

    /// `dlopen` of a staged copy, as gate 2 does it for either ABI.
    static func map(_ stagedPath: String) throws(GateRefusal) -> UnsafeMutableRawPointer {
        guard let handle = dlopen(stagedPath, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
            throw GateRefusal(gate: 2, field: "dlopen", expected: "a library the dynamic loader accepts", found: reason)
        }
        return handle
    }

    /// Gate 3: calls the entry symbol and checks the descriptor: SDK major equal, plugin minor no
    /// newer than the host's, the id the manifest declares, and a factory that is this SDK's
    /// `PluginFactory` (a failed cast means the plugin carries its own copy of the SDK).
    public static func handshake(entry: tessera_entry_fn, expectedID: String?, host: HostIdentity) throws(GateRefusal) -> Handshake {
        let descriptor = callEntry(entry, host: host)
        guard let d = descriptor?.pointee else {
            throw GateRefusal(gate: 3, field: "descriptor", expected: "a descriptor", found: "NULL from \(TESSERA_ENTRY_SYMBOL)")
        }
        guard d.magic == TESSERA_DESCRIPTOR_MAGIC, d.size >= UInt32(MemoryLayout<tessera_descriptor_t>.offset(of: \.reserved)!) else {
            throw GateRefusal(gate: 3, field: "descriptor", expected: "a tessera_descriptor_t", found: "magic 0x\(String(d.magic, radix: 16)), size \(d.size)")
        }
        if d.sdk_abi_major != host.sdkABIMajor {
            throw GateRefusal(gate: 3, field: "sdk.abi.major", expected: "\(host.sdkABIMajor) (host)", found: "\(d.sdk_abi_major) (plugin)")
        }
        if d.sdk_abi_minor > host.sdkABIMinor {
            throw GateRefusal(gate: 3, field: "sdk.abi.minor", expected: "at most \(host.sdkABIMinor) (host)", found: "\(d.sdk_abi_minor) (plugin)")
        }
        let id = d.plugin_id.map { String(cString: $0) } ?? ""
        if let expectedID, id != expectedID {
            throw GateRefusal(gate: 3, field: "id", expected: "\(expectedID) (manifest)", found: "\(id) (plugin)")
        }
        guard let raw = d.factory else {
            throw GateRefusal(gate: 3, field: "factory", expected: "a PluginFactory", found: "NULL")
        }
        let object = Unmanaged<AnyObject>.fromOpaque(raw).takeRetainedValue()
        guard let factory = object as? PluginFactory else {
            throw GateRefusal(gate: 3, field: "factory", expected: "TesseraSDK.PluginFactory", found: "\(type(of: object)), which does not cast",
                              hint: "the plugin embeds its own copy of the SDK; depend on the shared TesseraSDK product")
        }
        return Handshake(pluginID: id, reportedABI: (d.sdk_abi_major, d.sdk_abi_minor), code: .swift(factory))
    }

    static func callEntry(_ entry: tessera_entry_fn, host: HostIdentity) -> UnsafePointer<tessera_descriptor_t>? {
        host.hostVersion.withCString { version in
            var info = tessera_host_t()
            info.size = UInt32(MemoryLayout<tessera_host_t>.size)
            info.sdk_abi_major = host.sdkABIMajor
            info.sdk_abi_minor = host.sdkABIMinor
            info.host_version = version
            return withUnsafePointer(to: &info) { entry($0) }
        }
    }

    /// All three gates: stage the build (so the checked bytes are the loaded bytes), verify the
    /// copy, load it, shake hands.
    public static func load(
        path: String, manifest: PluginManifest?, generations: GenerationStore, host: HostIdentity = .current
    ) throws(GateRefusal) -> LoadedGeneration {
        let staged = try stage(path, in: generations)
        let library = try FileGate.verify(staged, manifest: manifest, host: host)
        return try load(library, manifest: manifest, host: host)
    }

    /// Gates 2 and 3 for a staged library that passed gate 1.
    public static func load(_ library: VerifiedLibrary, manifest: PluginManifest?, host: HostIdentity = .current) throws(GateRefusal) -> LoadedGeneration {
        let (handle, answer) = try openAndShakeHands(path: library.path, isCABI: library.stamp.isCABI, expectedID: manifest?.id, host: host)
        return LoadedGeneration(library: library, stagedPath: library.path, handshake: answer, handle: handle)
    }

    /// Gates 2 and 3 by the library's ABI, as its stamp says (gate 1 read it): a Swift plugin's
    /// entry and descriptor, or a C-ABI plugin's entry and function table.
    public static func openAndShakeHands(path: String, isCABI: Bool, expectedID: String?, host: HostIdentity = .current)
        throws(GateRefusal) -> (UnsafeMutableRawPointer, Handshake)
    {
        if isCABI {
            let (handle, entry) = try CLibraryLoader.open(stagedPath: path)
            return (handle, try CLibraryLoader.handshake(entry: entry, expectedID: expectedID, host: host))
        }
        let (handle, entry) = try open(stagedPath: path)
        return (handle, try handshake(entry: entry, expectedID: expectedID, host: host))
    }

    /// Copies the build to its content-addressed path; a failure is a gate 1 refusal of the file.
    public static func stage(_ path: String, in generations: GenerationStore) throws(GateRefusal) -> StagedLibrary {
        do { return try generations.stage(path) } catch {
            throw GateRefusal(gate: 1, field: "library", expected: "a readable file, copied under \(generations.root)",
                              found: "\(path): \(error.localizedDescription)")
        }
    }
}
