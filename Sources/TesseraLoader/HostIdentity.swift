import TesseraSDK

/// What a host is, as plugins are checked against it: the loaded SDK's ABI and the compiler that
/// built the host.
public struct HostIdentity: Sendable, Hashable {
    /// The ABI of the loaded `libTesseraSDK.so`.
    public let sdkABIMajor: UInt32
    public let sdkABIMinor: UInt32
    /// The compiler identity baked into the host, in the same form as a plugin's stamp.
    public let toolchain: String
    /// The Swift version the host was built with (`6.3.1`), compared with a manifest's `sdk.toolchain`.
    public let swiftVersion: String
    /// The host's own version.
    public let hostVersion: String
    /// The C ABI (`tessera_plugin.h`) the host speaks to C-ABI plugins.
    public let cABIMajor: UInt32
    public let cABIMinor: UInt32

    public init(sdkABIMajor: UInt32, sdkABIMinor: UInt32, toolchain: String, swiftVersion: String, hostVersion: String,
                cABIMajor: UInt32 = TESSERA_C_ABI_MAJOR, cABIMinor: UInt32 = TESSERA_C_ABI_MINOR) {
        self.cABIMajor = cABIMajor
        self.cABIMinor = cABIMinor
        self.sdkABIMajor = sdkABIMajor
        self.sdkABIMinor = sdkABIMinor
        self.toolchain = toolchain
        self.swiftVersion = swiftVersion
        self.hostVersion = hostVersion
    }

    /// This process: the loaded SDK, and the stamp compiled into the host itself.
    public static let current: HostIdentity = {
        let stamp = tessera_plugin_stamp()!.pointee
        let toolchain = withUnsafeBytes(of: stamp.toolchain) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return HostIdentity(sdkABIMajor: SDKVersion.loadedMajor, sdkABIMinor: SDKVersion.loadedMinor,
                            toolchain: toolchain, swiftVersion: pinnedSwiftVersion, hostVersion: tesseraVersion)
    }()
}

/// The version of Tessera itself.
public let tesseraVersion = "0.1.0"

/// The Swift toolchain Tessera is pinned to. Linux has no Swift ABI stability, so host and plugins
/// must be built by exactly this compiler (sdk/.swift-version says the same).
#if compiler(>=6.3.1) && !compiler(>=6.3.2)
public let pinnedSwiftVersion = "6.3.1"
#else
public let pinnedSwiftVersion = "unpinned"
#warning("Tessera is pinned to Swift 6.3.1 (sdk/.swift-version); plugins built with 6.3.1 will be refused by this host")
#endif
