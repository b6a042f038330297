// swift-tools-version:6.0
// Tessera: a plugin host for personal-app modules. See README.md and ../shared/DESIGN.md.
//
// Layering, from the bottom:
//   sdk/ (its own package)  TesseraSDK (dynamic, library evolution) + TesseraPluginStamp (static C)
//   TesseraSystem           the host's primitives: EINTR-safe system calls, an async serial gate
//   TesseraSchema           JSON Schema validation of manifests, deployments and operation input
//   TesseraSQLite           a small, careful wrapper over the system SQLite
//   TesseraManifest         plugin manifests and deployment files: models, loading, errors
//   TesseraLoader           files -> validated, loaded generations (ELF stamp, lint, sha256, dlopen, handshake)
//   TesseraStorage          the storage capability (one SQLite database per plugin, record API, change log)
//   TesseraClock            the clock capability (system and virtual clocks, persisted timers)
//   TesseraRecurrence       RFC 5545 recurrence rules evaluated in a time zone
//   TesseraNotifications    the notifications capability (schedule, delivery ledger, sinks)
//   TesseraEvents           the events capability (persisted outbox, ordered delivery, retries)
//   TesseraLocation         the location feed (OwnTracks, GPX replay, gpsd; validation)
//   TesseraSync             the sync capability's replication core (HLC, cell changes, causal length, merkle)
//   TesseraSyncClient       a device's side of the hub protocol (check, push, pull; cursors)
//   TesseraOnDemand         Foundation's networking and XML, dlopen'ed on first use (TesseraFoundationOnDemand)
//   TesseraOutbound         the HTTP client capability (granted hosts, redirects to emulators; URLSession)
//   TesseraSecrets          the secrets capability (secrets.sqlite, apart from plugin records)
//   TesseraFiles            the files capability (content-addressed files per plugin, their index, collection)
//   TesseraHub              the hub's store: people, devices, spaces, roles, invitations, per-space change logs
//   TesseraHubPostgres      the same store in PostgreSQL (postgres-nio), for a hub run as several replicas
//   TesseraRuntime          lifecycle, grants, dispatch: the host
//   TesseraHTTP             the HTTP edge (Hummingbird): API, OpenAPI, console
//   TesseraCLI -> tessera   the command line
// Plugins/ holds one dynamic library product per shipped plugin; each links only libTesseraSDK.so.
import PackageDescription

let package = Package(
    name: "Tessera",
    products: [
        .executable(name: "tessera", targets: ["TesseraCLI"]),
        .executable(name: "tessera-bench", targets: ["TesseraBench"]),
        .executable(name: "tessera-plain-server", targets: ["TesseraPlainServer"]),
        .executable(name: "tessera-storage-torture", targets: ["TesseraStorageTorture"]),
        .executable(name: "tessera-plugin-runner", targets: ["TesseraPluginRunner"]),
        .library(name: "TesseraFoundationOnDemand", type: .dynamic, targets: ["TesseraFoundationOnDemand"]),
        .library(name: "TesseraExample", type: .dynamic, targets: ["TesseraExample", "TesseraExampleEntry"]),
        .library(name: "TesseraHello", type: .dynamic, targets: ["TesseraHello", "TesseraHelloEntry"]),
        .library(name: "TesseraFinance", type: .dynamic, targets: ["TesseraFinance", "TesseraFinanceEntry"]),
        .library(name: "TesseraStress", type: .dynamic, targets: ["TesseraStress", "TesseraStressEntry"]),
        .library(name: "TesseraBaby", type: .dynamic, targets: ["TesseraBaby", "TesseraBabyEntry"]),
        .library(name: "TesseraSafeTravel", type: .dynamic, targets: ["TesseraSafeTravel", "TesseraSafeTravelEntry"]),
        .library(name: "TesseraSTAG", type: .dynamic, targets: ["TesseraSTAG", "TesseraSTAGEntry"]),
        // A plugin in C over the stable C ABI (tessera_plugin.h, docs/c-abi.md): no Swift in it.
        .library(name: "TesseraCNotes", type: .dynamic, targets: ["TesseraCNotes"]),
        .library(name: "TesseraSTAGEmulator", targets: ["TesseraSTAGEmulator"]),
        .executable(name: "stag-emulator", targets: ["STAGEmulatorTool"]),
        .library(name: "TesseraTesting", targets: ["TesseraTesting"]),
    ],
    dependencies: [
        .package(path: "sdk"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Hummingbird's own dependencies, named because the HTTP edge uses them directly: the bound
        // port (NIOCore), a request cut short told apart from a bug (NIOHTTP1), a graceful stop
        // (ServiceLifecycle), its log lines routed to the host's log (Logging).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // HTTP/1 request and response parts as a channel handler sees them (NIOHTTPTypes): the
        // edge's own endpoints answered on the event loop.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The hub's PostgreSQL store (DESIGN.md §7, §9): several hub replicas over one database.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // TLS settings for that database's connections (postgres-nio's own dependency).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // `/metrics` (issue 46): the edge records through swift-metrics' API, and swift-prometheus
        // keeps the series and writes the exposition format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "TesseraSchema", dependencies: [sdk]),
        // The host's primitives, depending on nothing: EINTR-safe system calls, an async serial gate.
        .target(name: "TesseraSystem"),
        .target(name: "TesseraSQLite", dependencies: ["CSQLite", "CTesseraSQLiteSetup", sdk]),
        // `sqlite3_config`, which takes C varargs: each connection's page cache filled on demand.
        .target(name: "CTesseraSQLiteSetup", dependencies: ["CSQLite"]),
        // A manifest that passed is recorded per host build: the build ID comes from CTesseraImage.
        .target(name: "TesseraManifest", dependencies: [sdk, "TesseraSchema", "TesseraSystem", "CTesseraImage"]),
        // The build ID of a mapped image, from its notes in memory (`dl_iterate_phdr`).
        .target(name: "CTesseraImage"),
        .target(name: "TesseraLoader", dependencies: [sdk, stamp, "TesseraManifest", "TesseraSystem"]),
        .target(name: "TesseraStorage", dependencies: [sdk, "TesseraSQLite", "TesseraSystem"]),
        .target(name: "TesseraClock", dependencies: [sdk, "TesseraSQLite"]),
        .target(name: "TesseraRecurrence", dependencies: ["TesseraSystem"]),
        .target(name: "TesseraNotifications", dependencies: [sdk, "TesseraSQLite", "TesseraClock", "TesseraRecurrence", "TesseraOnDemand"]),
        .target(name: "TesseraEvents", dependencies: [sdk, "TesseraSQLite", "TesseraClock"]),
        .target(name: "TesseraLocation", dependencies: [sdk, "TesseraClock", "TesseraSystem", "TesseraOnDemand"]),
        .target(name: "TesseraSync", dependencies: [sdk, "TesseraSQLite", "TesseraSystem"]),
        // Foundation's networking and XML in a library of their own, loaded on first use by
        // TesseraOnDemand: the host's executable links neither (docs/architecture.md).
        .target(name: "TesseraFoundationOnDemand"),
        .target(name: "TesseraOnDemand"),
        .target(name: "TesseraOutbound", dependencies: [sdk, "TesseraOnDemand"]),
        .target(name: "TesseraSyncClient", dependencies: [sdk, "TesseraSQLite", "TesseraSync", "TesseraFiles", "TesseraOnDemand"]),
        .target(name: "TesseraSecrets", dependencies: [sdk, "TesseraSQLite"]),
        // SHA-256 of file contents comes from TesseraLoader's `SHA256`; collection is due work on the clock.
        .target(name: "TesseraFiles", dependencies: [sdk, "TesseraSQLite", "TesseraLoader", "TesseraClock", "TesseraSystem"]),
        // The system's libcrypt: yescrypt for the hub's passwords.
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // SHA-256 of device tokens and invitation codes comes from TesseraLoader's `SHA256`.
        .target(name: "TesseraHub", dependencies: [sdk, "TesseraSQLite", "TesseraSync", "TesseraLoader", "TesseraClock", "CCrypt", "TesseraOnDemand", "TesseraSystem"]),
        // The hub's store in PostgreSQL, for hubs that run as several replicas (edge: postgres-nio).
        .target(name: "TesseraHubPostgres", dependencies: [
            "TesseraHub", sdk, .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // The process tier (docs/isolation.md): frames, the child's capability proxies, the runner's loop.
        .target(name: "TesseraIsolation", dependencies: [sdk, "TesseraLoader", "TesseraSystem"]),
        // The process tier's sandbox (Landlock, seccomp, a network namespace, rlimits), applied by a
        // constructor of the runner only: never linked into the host.
        .target(name: "CTesseraSandbox"),
        // The host's fatal-signal handlers: which in-process plugin crashed it (issue 43).
        .target(name: "CTesseraCrash"),
        .executableTarget(name: "TesseraPluginRunner", dependencies: ["TesseraIsolation", "CTesseraSandbox"]),
        .target(name: "TesseraRuntime", dependencies: [
            sdk, "TesseraIsolation", "TesseraSchema", "TesseraManifest", "TesseraLoader", "TesseraStorage", "TesseraClock", "TesseraSQLite", "CTesseraCrash", "TesseraSystem",
            "TesseraNotifications", "TesseraEvents", "TesseraLocation", "TesseraOutbound", "TesseraSecrets", "TesseraSync", "TesseraSyncClient", "TesseraFiles",
            // The host's log (DESIGN.md §9): one swift-log Logger, shared with the HTTP edge.
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "TesseraHTTP", dependencies: [
            "TesseraRuntime", "TesseraManifest", "TesseraLoader", "TesseraSchema", "TesseraClock", "TesseraNotifications",
            "TesseraEvents", "TesseraLocation", "TesseraHub", "TesseraSync", "TesseraFiles", "TesseraSystem", sdk,
            .product(name: "Hummingbird", package: "hummingbird"),
            // The host's own endpoints answered in the connection's pipeline, on its event loop
            // (Server/EdgeHTTP1Channel.swift, Server/HostEndpointsOnTheLoop.swift).
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            // The edge's event loops; OwnTracks over MQTT: the subscriber's connection (Location/MQTT).
            .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        .executableTarget(name: "TesseraCLI", dependencies: [
            "TesseraRuntime", "TesseraLoader", "TesseraManifest", "TesseraClock", "TesseraHTTP", "TesseraLocation", "TesseraHub", "TesseraHubPostgres", "TesseraSyncClient", "TesseraOnDemand", "TesseraSQLite", "TesseraSystem", sdk,
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "TesseraBench", dependencies: [
            "TesseraSystem",
            "TesseraRuntime", "TesseraNotifications", "TesseraLocation", "TesseraRecurrence", "TesseraLoader", "TesseraManifest", "TesseraClock", "TesseraStorage", "TesseraSQLite", "CSQLite", "TesseraSync", "TesseraHub", "TesseraHubPostgres", sdk,
            "TesseraSyncClient", "TesseraFiles",  // `tessera-bench hub-files`: photos through the hub
            "TesseraIsolation",  // `tessera-bench isolation`: the per-message work alone
            "TesseraTestFixtures",  // `tessera-bench hub-load`: the PostgreSQL server it starts
            // `tessera-bench http`: the edge against a plain Hummingbird route in the same process.
            "TesseraHTTP", "TesseraSchema", "TesseraBenchAnchor", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),  // `tessera-bench edge`: requests without a socket
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "Logging", package: "swift-log"),
        ]),
        // The bare Hummingbird route the benchmarks compare the edge with, and the process of its
        // own `tessera-bench memory` measures beside `tessera serve`: Hummingbird and nothing else.
        .target(name: "TesseraBenchAnchor", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "TesseraPlainServer", dependencies: ["TesseraBenchAnchor"]),
        // Writes record batches, or delivers notifications, until killed; the crash-safety tests
        // kill it with SIGKILL.
        .executableTarget(name: "TesseraStorageTorture", dependencies: ["TesseraStorage", "TesseraNotifications", "TesseraClock", "TesseraFiles", "TesseraSystem"]),
        // A plugin's own tests: its real code on the host's real capabilities, in-process.
        .target(name: "TesseraTesting", dependencies: [
            "TesseraRuntime", "TesseraManifest", "TesseraClock", "TesseraStorage", "TesseraNotifications", "TesseraEvents",
            "TesseraLocation", "TesseraOutbound", "TesseraSecrets", sdk,
        ]),

        // Shipped plugins: each its own dynamic library, linking the shared SDK and the stamp.
        // Its `ui/` folder holds the pages its manifest declares: static files the host serves, not sources.
        // A plugin is two targets: its module (the logic, which its tests link) and its entry (the one
        // C symbol the host looks up, `Entry/`), so that one test binary can link many plugins.
        .target(name: "TesseraExample", dependencies: [sdk, stamp], path: "Plugins/Example", exclude: ["ui", "Entry"]),
        .target(name: "TesseraExampleEntry", dependencies: ["TesseraExample", sdk], path: "Plugins/Example/Entry"),
        // The smallest plugin (no Foundation): what the load benchmark loads as "a small plugin".
        .target(name: "TesseraHello", dependencies: [sdk, stamp], path: "Plugins/Hello", exclude: ["manifest.json", "Entry"]),
        .target(name: "TesseraHelloEntry", dependencies: ["TesseraHello", sdk], path: "Plugins/Hello/Entry"),
        // A C-ABI plugin in C (docs/c-abi.md): its headers are the SDK's C ABI, and nothing of Swift.
        .target(name: "TesseraCNotes", dependencies: [.product(name: "TesseraPluginCABI", package: "sdk")], path: "Plugins/CNotes",
                exclude: ["README.md"]),
        // Personal finance (specs/finance.md, docs/finance.md).
        .target(name: "TesseraFinance", dependencies: [sdk, stamp], path: "Plugins/Finance", exclude: ["Entry", "ui"]),
        .target(name: "TesseraFinanceEntry", dependencies: ["TesseraFinance", sdk], path: "Plugins/Finance/Entry"),
        .target(name: "TesseraStress", dependencies: [sdk, stamp], path: "Plugins/Stress", exclude: ["Entry", "ui"]),
        .target(name: "TesseraBaby", dependencies: [sdk, stamp], path: "Plugins/Baby", exclude: ["Entry", "ui"]),
        .target(name: "TesseraStressEntry", dependencies: ["TesseraStress", sdk], path: "Plugins/Stress/Entry"),
        .target(name: "TesseraBabyEntry", dependencies: ["TesseraBaby", sdk], path: "Plugins/Baby/Entry"),
        // Safe travel (issue 21; specs/safe-travel.md, docs/safetravel.md).
        .target(name: "TesseraSafeTravel", dependencies: [sdk, stamp], path: "Plugins/SafeTravel", exclude: ["Entry", "ui"]),
        .target(name: "TesseraSafeTravelEntry", dependencies: ["TesseraSafeTravel", sdk], path: "Plugins/SafeTravel/Entry"),

        // IS/STAG (issue 9): the module, and an emulator of the university web services for its tests and demos.
        .target(name: "TesseraSTAG", dependencies: [sdk, stamp], path: "Plugins/STAG", exclude: ["Entry", "ui"]),
        .target(name: "TesseraSTAGEntry", dependencies: ["TesseraSTAG", sdk], path: "Plugins/STAG/Entry"),
        .target(name: "TesseraSTAGEmulator", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "TesseraSystem",
        ]),
        .executableTarget(name: "STAGEmulatorTool", dependencies: ["TesseraSTAGEmulator"]),
        .testTarget(name: "TesseraSTAGTests", dependencies: ["TesseraSTAG", "TesseraSTAGEmulator", "TesseraTesting", "TesseraTestFixtures"]),

        // Test support: fixture plugins built with swiftc, temporary workspaces, stamp patching.
        .target(name: "TesseraTestFixtures", dependencies: ["TesseraLoader", "TesseraSystem", "CTestScratch", sdk], path: "Tests/TesseraTestFixtures"),
        // One scratch folder per test process (TMPDIR), removed when it ends: Tests/CTestScratch/scratch.c.
        .target(name: "CTestScratch", path: "Tests/CTestScratch"),
        .testTarget(name: "TesseraSchemaTests", dependencies: ["TesseraSchema"]),
        .testTarget(name: "TesseraSystemTests", dependencies: ["TesseraSystem"]),
        // One test target per module, named after it, holding the tests of that module alone.
        .testTarget(name: "TesseraClockTests", dependencies: ["TesseraClock", "TesseraTestFixtures"]),
        .testTarget(name: "TesseraSecretsTests", dependencies: ["TesseraSecrets", "TesseraTestFixtures", sdk]),
        .testTarget(name: "TesseraSQLiteTests", dependencies: ["TesseraSQLite", "CSQLite", "TesseraTestFixtures", sdk]),
        .testTarget(name: "TesseraIsolationTests", dependencies: ["TesseraIsolation", sdk]),
        .testTarget(name: "TesseraManifestTests", dependencies: ["TesseraManifest", "TesseraSchema", "TesseraLoader", "TesseraTestFixtures", sdk]),
        .testTarget(name: "TesseraStorageTests", dependencies: ["TesseraStorage", "TesseraSQLite", "TesseraTestFixtures"]),
        .testTarget(name: "TesseraLoaderTests", dependencies: ["TesseraLoader", "TesseraTestFixtures", "CTestScratch"]),
        .testTarget(name: "TesseraRuntimeTests", dependencies: [
            "TesseraRuntime", "TesseraManifest", "TesseraLoader", "TesseraClock", "TesseraTestFixtures", "TesseraSQLite",
            "TesseraNotifications", "TesseraIsolation", "TesseraSecrets", "TesseraSchema", sdk,
        ]),
        .testTarget(name: "TesseraCLITests", dependencies: [
            "TesseraTestFixtures", "TesseraSecrets", "TesseraFioEmulator", "TesseraLoader", sdk,
            .product(name: "TesseraPluginTesting", package: "sdk"),  // HostedPluginTests: the harness new-plugin wires
        ]),
        .testTarget(name: "TesseraExampleTests", dependencies: ["TesseraExample", "TesseraHello", "TesseraTesting"]),
        // Fio banka's REST API on loopback, for the finance module's import tests.
        .target(name: "TesseraFioEmulator", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/TesseraFioEmulator"),
        .testTarget(name: "TesseraFinanceTests", dependencies: ["TesseraFinance", "TesseraTesting", "TesseraTestFixtures", "TesseraFioEmulator"]),
        .testTarget(name: "TesseraStressTests", dependencies: ["TesseraStress", "TesseraTesting", "TesseraTestFixtures"]),
        .testTarget(name: "TesseraBabyTests", dependencies: ["TesseraBaby", "TesseraTesting", "TesseraTestFixtures", "TesseraStorage"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "TesseraSafeTravelTests", dependencies: ["TesseraSafeTravel", "TesseraTesting", "TesseraTestFixtures", "TesseraLocation"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "TesseraRecurrenceTests", dependencies: ["TesseraRecurrence", "TesseraTestFixtures"], exclude: ["Fixtures"]),
        .testTarget(name: "TesseraNotificationsTests", dependencies: [
            "TesseraNotifications", "TesseraRecurrence", "TesseraClock", "TesseraTestFixtures", sdk,
        ]),
        .testTarget(name: "TesseraEventsTests", dependencies: ["TesseraEvents", "TesseraClock", "TesseraTestFixtures", sdk]),
        .testTarget(name: "TesseraLocationTests", dependencies: ["TesseraLocation", "TesseraClock", "TesseraTestFixtures", sdk], exclude: ["Fixtures"]),
        .testTarget(name: "TesseraSyncTests", dependencies: ["TesseraSync", "TesseraSQLite", "TesseraTestFixtures", sdk]),
        .testTarget(name: "TesseraOutboundTests", dependencies: [
            "TesseraOutbound", "TesseraSecrets", "TesseraRuntime", "TesseraManifest", "TesseraTestFixtures", "TesseraTesting", sdk,
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
        ]),
        // A real hub on loopback (SQLite or PostgreSQL) and devices' replicas, for the hub's tests and its clients'.
        .target(name: "TesseraHubFixtures", dependencies: [
            "TesseraHub", "TesseraHubPostgres", "TesseraHTTP", "TesseraRuntime", "TesseraManifest", "TesseraSQLite", "TesseraSync", "TesseraSyncClient", "TesseraTestFixtures", sdk,
        ], path: "Tests/TesseraHubFixtures"),
        .testTarget(name: "TesseraHubTests", dependencies: [
            "TesseraHub", "TesseraHubPostgres", "TesseraSyncClient", "TesseraFiles", "TesseraLoader", "TesseraClock", "TesseraTesting", "TesseraStress", "TesseraSafeTravel", "TesseraSTAG", "TesseraSTAGEmulator", "TesseraSync", "TesseraSQLite", "TesseraHTTP", "TesseraRuntime", "TesseraManifest", "TesseraTestFixtures", "TesseraHubFixtures", sdk,
        ]),
        // The device's side of the hub protocol (DeviceSync, files, a faulty network) against a real hub.
        .testTarget(name: "TesseraSyncClientTests", dependencies: [
            "TesseraSyncClient", "TesseraSync", "TesseraFiles", "TesseraClock", "TesseraLoader", "TesseraHub", "TesseraTestFixtures", "TesseraHubFixtures", sdk,
        ]),
        // A data directory written by an earlier release opens and upgrades (Fixtures/), and the hub's migrations on both stores.
        .testTarget(name: "TesseraUpgradeTests", dependencies: [
            "TesseraHub", "TesseraHubPostgres", "TesseraSyncClient", "TesseraSync", "TesseraSQLite", "TesseraStorage", "TesseraRuntime", "TesseraManifest",
            "TesseraTestFixtures", sdk,
        ], exclude: ["Fixtures"]),
        .testTarget(name: "TesseraFilesTests", dependencies: ["TesseraFiles", "TesseraClock", "TesseraLoader", "TesseraSQLite", "TesseraTestFixtures", sdk]),
        .testTarget(name: "TesseraHTTPTests", dependencies: [
            "TesseraHTTP", "TesseraRuntime", "TesseraManifest", "TesseraTestFixtures", "TesseraSTAGEmulator", "TesseraFioEmulator", sdk,
            // Router-level tests without sockets (`app.test(.router)`, RouterLevelTests).
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)

var sdk: Target.Dependency { .product(name: "TesseraSDK", package: "sdk") }
var stamp: Target.Dependency { .product(name: "TesseraPluginStamp", package: "sdk") }
