// swift-tools-version:6.2
// The Tessera SDK: the one shared library that the host and every plugin link.
//
// 6.2, not lower, on purpose: the SDK builds with `-enable-library-evolution`, an unsafe flag, and
// SwiftPM takes a package with unsafe flags named by version (`.package(url:from:)`, as plugins
// name an SDK exported by `tessera sdk export`) only when its manifest says 6.2 or later; with 6.0
// it refused: "the target 'TesseraSDK' in product 'TesseraSDK' contains unsafe build flags".
//
// Plugins depend on two products of this package:
// - `TesseraSDK`, a dynamic library built with library evolution, so the host and all plugins share
//   one copy of every SDK type (a static copy breaks every cast across the boundary, silently);
// - `TesseraPluginStamp`, a static C target compiled into each plugin: it bakes the SDK ABI version
//   and the compiler identity into the ELF section `tessera_stamp`, which the host reads from the file
//   before it loads any plugin code.
import Foundation
import PackageDescription

// The SDK is built with library evolution, over a Foundation that is not, and the compiler says so
// for every file that imports Foundation, in every pass: 648 identical warnings in a plugin's first
// build, burying the author's own, with no flag that silences that one warning. The SDK's author
// reads them; a plugin's author did not cause them. So the SDK target builds without warnings unless
// TESSERA_SDK_WARNINGS=1 (SDKWarningsTests builds it so and checks that this is the only one).
let sdkWarnings = ProcessInfo.processInfo.environment["TESSERA_SDK_WARNINGS"] == "1"

let package = Package(
    name: "TesseraSDK",
    products: [
        .library(name: "TesseraSDK", type: .dynamic, targets: ["TesseraSDK"]),
        .library(name: "TesseraPluginStamp", type: .static, targets: ["TesseraPluginStamp"]),
        // The C ABI's headers (tessera_plugin.h), for a plugin written in C and built by SwiftPM.
        .library(name: "TesseraPluginCABI", targets: ["CTesseraABI"]),
        // A plugin's tests against the real host, run as its `tessera` command (HostedPlugin): it
        // builds nothing of the host, so a plugin's first test build takes seconds.
        .library(name: "TesseraPluginTesting", targets: ["TesseraPluginTesting"]),
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
            swiftSettings: [.unsafeFlags(["-enable-library-evolution", "-no-verify-emitted-module-interface"]
                                         + (sdkWarnings ? [] : ["-suppress-warnings"]))]
        ),
        // Linked into a plugin's test binary only, never into a plugin: no library evolution.
        .target(name: "TesseraPluginTesting", dependencies: ["TesseraSDK"]),
        .testTarget(name: "TesseraSDKTests", dependencies: ["TesseraSDK"]),
    ],
    swiftLanguageModes: [.v6]
)
