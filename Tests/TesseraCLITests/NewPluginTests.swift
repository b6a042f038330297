import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera new-plugin`: the generated package builds on its own, outside this repository, and the
/// library it makes passes the gates and serves calls in a host.
@Suite struct NewPluginTests {
    func newPlugin(_ arguments: String...) async throws -> ProcessResult {
        try await runDetached(Fixtures.tesseraExecutable, ["new-plugin"] + arguments)
    }

    // Builds the SDK package again in the generated package's own .build (about a minute on a cold
    // machine). The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func generatedPackageBuildsVerifiesAndServesCalls() async throws {
        let started = ContinuousClock.now
        let root = Fixtures.temporaryDirectory("new-plugin")
        defer { try? FileManager.default.removeItem(atPath: root) }  // its .build is about 40 MB
        let created = try await newPlugin("Notes", "--dir", root)
        #expect(created.status == 0, "\(created.stderr)")
        let package = root + "/Notes"
        #expect(created.stdout.contains("created plugin com.example.notes in \(package)"))
        #expect(created.stdout.contains("Sources/Notes/NotesPlugin.swift"))
        #expect(created.stdout.contains("swift build"))

        // Built as a plugin author would: `swift build` in the package folder, nothing from this repo's .build.
        let built = try await runDetached("/usr/bin/env", ["swift", "build"], directory: package)
        try #require(built.status == 0, "swift build failed:\n\(built.stdout)\n\(built.stderr)")
        // Quiet: no warning the author did not cause (the SDK's 648 about Foundation's library
        // evolution are the SDK's own, silenced in its package).
        let warnings = (built.stdout + built.stderr).split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.isEmpty, "\(warnings.count) warnings, the first: \(warnings.prefix(3).joined(separator: "\n"))")
        let library = package + "/.build/debug/libNotes.so"
        try #require(FileManager.default.fileExists(atPath: library))

        let verified = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "verify", library, "--manifest", package + "/manifest.json", "--load"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("gate 3 ok (handshake: com.example.notes"))

        // A host whose manifests are the package folder and whose libraries are its .build/debug.
        let ws = FixtureWorkspace("new-plugin-host")
        ws.writeDeployment(plugins: [["id": "com.example.notes", "version": "^0.1", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]],
                           extra: ["manifestDirectories": [package], "libraryPaths": [package + "/.build/debug"]])
        func tessera(_ arguments: String...) async throws -> ProcessResult {
            try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
        }
        let added = try await tessera("call", "com.example.notes", "add-item", #"{"text": "buy milk"}"#)
        #expect(added.status == 0, "\(added.stderr)")
        let id = try JSONValue(parsing: added.stdout)["id"]?.stringValue
        #expect(id != nil)
        #expect(id.map { Array($0)[14] } == "7", "the template makes time-ordered ids (RecordID, a version 7 UUID): \(id ?? "")")
        let listed = try await tessera("call", "com.example.notes", "list-items", "--json")
        #expect(listed.status == 0, "\(listed.stderr)")
        let items = try JSONValue(parsing: listed.stdout)["items"]?.arrayValue ?? []
        #expect(items.count == 1)
        #expect(items.first?["text"] == "buy milk")
        #expect(items.first?["id"]?.stringValue == id)
        // The manifest's schema guards the operation.
        #expect(try await tessera("call", "com.example.notes", "add-item", "{}").status == 2)
        print("new-plugin round trip (generate, swift build, verify, two calls): \(ContinuousClock.now - started)")

        // Its own tests, on the harness, from the first minute: `swift test` in the package.
        let testing = ContinuousClock.now
        let tested = try await runDetached("/usr/bin/env", ["swift", "test"], directory: package)
        #expect(tested.status == 0, "swift test failed:\n\(tested.stdout.suffix(4000))\n\(tested.stderr.suffix(4000))")
        #expect(tested.stdout.contains(/Test run with 2 tests (in \d+ suites )?passed/), "\(tested.stdout.suffix(2000))")
        print("new-plugin swift test (first build of the harness, two tests): \(ContinuousClock.now - testing)")

        // `tessera dev`: a broken edit is refused while generation 1 serves; the fix is swapped in.
        let dev = try ChildProcess(Fixtures.tesseraExecutable, ["dev", "com.example.notes", "--package-path", package, "--port", "0", "--interval", "0.2",
                                                                "--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
        defer { if dev.isRunning { Task { await dev.terminateAndWait() } } }  // only when an expectation threw
        var seen = ""
        func readUntil(_ marker: String) async -> Bool {
            if !seen.contains(marker) { seen += await dev.output(until: marker) }
            return seen.contains(marker)
        }
        let watching = await readUntil("watching \(package)/Sources/Notes")
        try #require(watching, "\(seen)")
        let source = package + "/Sources/Notes/NotesPlugin.swift"
        let original = try String(contentsOfFile: source, encoding: .utf8)
        Fixtures.write(original + "\nthis is not Swift\n", to: source)
        #expect(await readUntil("build failed; generation 1 of com.example.notes keeps serving"), "\(seen)")
        Fixtures.write(original + "\n// edited while the host runs\n", to: source)
        #expect(await readUntil("swapped in generation 2 of com.example.notes"), "\(seen)")
        dev.terminate()
        #expect(await dev.exitStatus() == 0)
    }

    @Test func generatesTheFilesWithTheDefaultIDAndTheRepositorySDK() async throws {
        let root = Fixtures.temporaryDirectory("new-plugin")
        try FileManager.default.createDirectory(atPath: root + "/My_Notes", withIntermediateDirectories: true)  // empty: fine
        let created = try await newPlugin("My_Notes", "--dir", root)
        #expect(created.status == 0, "\(created.stderr)")
        let package = root + "/My_Notes"
        for file in ["Package.swift", "Sources/My_Notes/My_NotesPlugin.swift", "Tests/My_NotesTests/My_NotesTests.swift", "manifest.json", "README.md", ".gitignore"] {
            #expect(FileManager.default.fileExists(atPath: package + "/" + file), "\(file)")
        }
        let manifest = try JSONValue(parsing: String(contentsOfFile: package + "/manifest.json", encoding: .utf8))
        #expect(manifest["id"] == "com.example.my-notes")
        #expect(manifest["library"]?["name"] == "My_Notes")
        #expect(manifest["sdk"]?["abi"] == "1.9")
        #expect(manifest["sdk"]?["toolchain"] == "6.3.1")
        let packageSwift = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(packageSwift.contains(#"path: "\#(Fixtures.repositoryRoot)/sdk""#))
        // The test target on the repository's harness, named as SwiftPM names a path dependency: its folder.
        #expect(packageSwift.contains(#".package(path: "\#(Fixtures.repositoryRoot)")"#))
        let repositoryFolder = (Fixtures.repositoryRoot as NSString).lastPathComponent
        #expect(packageSwift.contains(#".testTarget(name: "My_NotesTests""#))
        #expect(packageSwift.contains(#".product(name: "TesseraTesting", package: "\#(repositoryFolder)")"#))
        #expect(packageSwift.contains(#".product(name: "TesseraPluginStamp", package: "TesseraSDK")"#))
        let plugin = try String(contentsOfFile: package + "/Sources/My_Notes/My_NotesPlugin.swift", encoding: .utf8)
        #expect(plugin.contains(#"PluginExport.descriptor(id: "com.example.my-notes") { My_NotesPlugin() }"#))
        #expect(!plugin.contains("{{"))

        let withID = try await newPlugin("Tasks", "--dir", root, "--id", "org.acme.tasks", "--sdk", Fixtures.repositoryRoot + "/sdk/")
        #expect(withID.status == 0, "\(withID.stderr)")
        #expect(try String(contentsOfFile: root + "/Tasks/manifest.json", encoding: .utf8).contains(#""id": "org.acme.tasks""#))
    }

    @Test func refusesANonEmptyFolderABadNameABadIDAndABadSDK() async throws {
        let root = Fixtures.temporaryDirectory("new-plugin")
        Fixtures.write("mine", to: root + "/Notes/keep.txt")
        let exists = try await newPlugin("Notes", "--dir", root)
        #expect(exists.status == 1)
        #expect(exists.stderr.hasPrefix("tessera: \(root)/Notes already exists and is not an empty folder"))
        #expect(exists.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: root + "/Notes/Package.swift"))
        #expect(try String(contentsOfFile: root + "/Notes/keep.txt", encoding: .utf8) == "mine")

        for bad in ["9lives", "my-plugin", "Notes.swift", "class", "TesseraSDK", ""] {
            let result = try await newPlugin(bad, "--dir", root)
            #expect(result.status == 2, "\(bad): \(result.stderr)")
            #expect(result.stderr.hasPrefix("tessera: NAME: expected"), "\(bad): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        let badID = try await newPlugin("Tasks", "--dir", root, "--id", "Org.Acme")
        #expect(badID.status == 2)
        #expect(badID.stderr.hasPrefix("tessera: --id: expected"))
        let badSDK = try await newPlugin("Tasks", "--dir", root, "--sdk", root)
        #expect(badSDK.status == 2)
        #expect(badSDK.stderr.hasPrefix("tessera: --sdk: expected the Tessera SDK package"))
        #expect(!FileManager.default.fileExists(atPath: root + "/Tasks"))
    }
}
