// swift-tools-version:6.0
// The Tessera SDK: the one shared library that the host and every plugin link.
//
// Plugins depend on two products of this package:
// - `TesseraSDK`, a dynamic library built with library evolution, so the host and all plugins share
//   one copy of every SDK type (a static copy breaks every cast across the boundary, silently);
// - `TesseraPluginStamp`, a static C target compiled into each plugin: it bakes the SDK ABI version
//   and the compiler identity into the ELF section `tessera_stamp`, which the host reads from the file
//   before it loads any plugin code.
import PackageDescription

let package = Package(
    name: "TesseraSDK",
    products: [
        .library(name: "TesseraSDK", type: .dynamic, targets: ["TesseraSDK"]),
        .library(name: "TesseraPluginStamp", type: .static, targets: ["TesseraPluginStamp"]),
    ],
    targets: [
        // The C header of the entry/stamp ABI: plain C structs, size first, append-only.
        .target(name: "CTesseraABI"),
        .target(name: "TesseraPluginStamp", dependencies: ["CTesseraABI"]),
        // SHA-256's compression (the SHA extensions, or portable C) and PBKDF2, compiled optimised in
        // debug builds too: a PIN's 210,000 PBKDF2 iterations would otherwise take seconds.
        .target(name: "CTesseraSHA256", cSettings: [.unsafeFlags(["-O2"])]),
        .target(
            name: "TesseraSDK",
            dependencies: ["CTesseraABI", "CTesseraSHA256"],
            swiftSettings: [.unsafeFlags(["-enable-library-evolution", "-no-verify-emitted-module-interface"])]
        ),
        .testTarget(name: "TesseraSDKTests", dependencies: ["TesseraSDK"]),
    ],
    swiftLanguageModes: [.v6]
)
