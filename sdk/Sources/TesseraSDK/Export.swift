@_exported import CTesseraABI

/// The SDK's ABI version, as the C header `tessera_abi.h` defines it.
///
/// Two views of it matter. ``loadedMajor`` and ``loadedMinor`` are read from the `libTesseraSDK.so`
/// that is loaded in this process: that is the host's version. A plugin's version is the one it was
/// *compiled* against, which its stamp and descriptor carry; reading ``loadedMajor`` from inside a
/// plugin would report the host's SDK instead.
public enum SDKVersion {
    /// The ABI major of the loaded SDK library. Plugins must match it exactly.
    public static let loadedMajor: UInt32 = TESSERA_SDK_ABI_MAJOR
    /// The ABI minor of the loaded SDK library. Plugins may be built against this minor or older.
    public static let loadedMinor: UInt32 = TESSERA_SDK_ABI_MINOR
}

/// Makes instances of a plugin. The plugin's entry symbol hands the host one factory.
public final class PluginFactory: Sendable {
    private let make: @Sendable () -> any Plugin

    /// Creates a factory from a function that makes a new plugin instance.
    public init(_ make: @escaping @Sendable () -> any Plugin) { self.make = make }

    /// Makes a new, not yet started, plugin instance.
    public func makePlugin() -> any Plugin { make() }
}

/// Builds the answer of a plugin's entry symbol.
///
/// Every plugin library exports exactly one C symbol, `tessera_plugin_entry`, written like this:
///
/// ```swift
/// import TesseraSDK
///
/// @_cdecl("tessera_plugin_entry")
/// public func tesseraPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
///     PluginExport.descriptor(id: "com.example.notes") { NotesPlugin() }
/// }
/// ```
///
/// The descriptor's ABI version comes from the plugin's own stamp, compiled into it from the SDK's
/// `TesseraPluginStamp` product, so the host sees the version the plugin was built against.
public enum PluginExport {
    /// The descriptor for a plugin with this id, made by `factory`.
    ///
    /// Compiled into the plugin (not called in the SDK library), so that the stamp it reads is the
    /// plugin's own. The descriptor is allocated once per call and never freed: a plugin library is
    /// never unloaded.
    @_alwaysEmitIntoClient
    public static func descriptor(id: String, factory: @escaping @Sendable () -> any Plugin) -> UnsafeRawPointer? {
        // A plugin without the stamp object has no such function; refuse to describe it.
        guard let stampFunction = Optional(tessera_plugin_stamp), let stampRecord = stampFunction() else { return nil }
        let stamp = stampRecord.pointee
        let descriptor = UnsafeMutablePointer<tessera_descriptor_t>.allocate(capacity: 1)
        descriptor.initialize(to: tessera_descriptor_t())
        descriptor.pointee.size = UInt32(MemoryLayout<tessera_descriptor_t>.size)
        descriptor.pointee.magic = TESSERA_DESCRIPTOR_MAGIC
        descriptor.pointee.sdk_abi_major = stamp.sdk_abi_major
        descriptor.pointee.sdk_abi_minor = stamp.sdk_abi_minor
        descriptor.pointee.plugin_id = UnsafePointer(strdupUTF8(id))
        descriptor.pointee.factory = Unmanaged.passRetained(PluginFactory(factory)).toOpaque()
        return UnsafeRawPointer(descriptor)
    }

    /// A NUL-terminated copy of `string`, never freed.
    @_alwaysEmitIntoClient
    static func strdupUTF8(_ string: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = Array(string.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        copy.initialize(from: utf8, count: utf8.count)
        return copy
    }
}
