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

    /// docs/plugin-guide.md step by step, its commands read from the guide and run as a reader
    /// types them (``PluginGuide``): step 1 generates the package, builds it, verifies it and runs
    /// its tests; step 9 writes the guide's deployment, lists and calls the plugin, and `tessera dev`
    /// swaps an edit in. A step the guide gets wrong fails here. The package builds the SDK again in
    /// its own .build (about a minute on a cold machine); the time limit is a watchdog against a
    /// hang, not a measurement.
    @Test(.hangWatchdog) func thePluginGuideWalkedStepByStep() async throws {
        let started = ContinuousClock.now
        let root = Fixtures.temporaryDirectory("new-plugin")
        defer { try? FileManager.default.removeItem(atPath: root) }  // its .build is about 40 MB
        let guide = try PluginGuide(source: root)
        let package = root + "/Notes"
        var here = root

        // Step 1: `tessera new-plugin`, `swift build`, `tessera plugins verify`, `swift test`.
        let generate = PluginGuide.commands(try #require(guide.blocks("sh", inStep: "1. Generate").first))
        try #require(generate.count == 5, "step 1's commands: \(generate)")
        let created = try await guide.run(generate[0], in: &here)
        try #require(created.status == 0, "\(generate[0]): \(created.stderr)")
        #expect(created.stdout.contains("created plugin com.example.notes in \(package)"))
        #expect(created.stdout.contains("Sources/Notes/NotesPlugin.swift"))

        // Built as a plugin author would: in the package folder, nothing from this repo's .build.
        let built = try await guide.run(generate[1], in: &here)
        try #require(built.status == 0, "\(generate[1]) failed:\n\(built.stdout)\n\(built.stderr)")
        #expect(here == package, "the guide moves into the package")
        // Quiet: no warning the author did not cause (the SDK's 648 about Foundation's library
        // evolution are the SDK's own, silenced in its package).
        let warnings = (built.stdout + built.stderr).split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.isEmpty, "\(warnings.count) warnings, the first: \(warnings.prefix(3).joined(separator: "\n"))")
        try #require(FileManager.default.fileExists(atPath: package + "/.build/debug/libNotes.so"))

        let verified = try await guide.run(generate[2], in: &here)
        #expect(verified.status == 0, "\(generate[2]): \(verified.stderr)")
        #expect(verified.stdout.contains("gate 3 ok (handshake: com.example.notes"))
        print("plugin guide, step 1 without its tests (generate, swift build, verify): \(ContinuousClock.now - started)")

        // Its own tests, on the SDK's harness (the host's command), from the first minute.
        let testing = ContinuousClock.now
        let tested = try await guide.run(generate[3], in: &here)
        #expect(tested.status == 0, "\(generate[3]) failed:\n\(tested.stdout.suffix(4000))\n\(tested.stderr.suffix(4000))")
        #expect(tested.stdout.contains(/Test run with 2 tests (in \d+ suites )?passed/), "\(tested.stdout.suffix(2000))")
        let testWarnings = (tested.stdout + tested.stderr).split(separator: "\n").filter { $0.contains("warning:") }
        #expect(testWarnings.isEmpty, "\(testWarnings.prefix(3).joined(separator: "\n"))")
        print("plugin guide, swift test (first build of the tests and their harness, two tests): \(ContinuousClock.now - testing)")
        // The same tests with the plugin in the host's process tier (section 8): the host finds its
        // runner beside itself, nothing to build first.
        let isolated = try await runDetached("/usr/bin/env", ["TESSERA_TEST_ISOLATION=process", "swift", "test"], directory: package)
        #expect(isolated.status == 0 && isolated.stdout.contains(/Test run with 2 tests (in \d+ suites )?passed/),
                "\(isolated.stdout.suffix(2000))\n\(isolated.stderr.suffix(2000))")

        // The conformance check, as the guide runs it on the fresh package.
        let checked = try await guide.run(generate[4], in: &here)
        #expect(checked.status == 0, "\(generate[4]): \(checked.stdout)\n\(checked.stderr)")
        #expect(checked.stdout.contains("com.example.notes: every check passed"), "\(checked.stdout)")

        // Step 9: the guide's deployment, beside the package, and its commands from that folder.
        let deployment = try #require(guide.blocks("json", inStep: "9. Load").first)
        Fixtures.write(deployment, to: root + "/dev.json")
        here = root
        let load = PluginGuide.commands(try #require(guide.blocks("sh", inStep: "9. Load").first))
        try #require(load.count == 3, "step 9's commands: \(load)")
        let listed = try await guide.run(load[0], in: &here)
        #expect(listed.status == 0, "\(load[0]): \(listed.stdout)\n\(listed.stderr)")
        #expect(listed.stdout.contains("com.example.notes") && listed.stdout.contains("active"), "\(listed.stdout)")
        let added = try await guide.run(load[1], in: &here)
        #expect(added.status == 0, "\(load[1]): \(added.stderr)")
        let id = try JSONValue(parsing: added.stdout)["id"]?.stringValue
        #expect(id.map { Array($0)[14] } == "7", "the template makes time-ordered ids (RecordID, a version 7 UUID): \(id ?? "")")
        // Beyond the guide: the item is there, and the manifest's schema guards the operation.
        func tessera(_ arguments: String...) async throws -> ProcessResult {
            try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", "dev.json"], directory: root)
        }
        let items = try JSONValue(parsing: try await tessera("call", "com.example.notes", "list-items", "--json").stdout)["items"]?.arrayValue ?? []
        #expect(items.count == 1 && items.first?["id"]?.stringValue == id, "\(items)")
        #expect(try await tessera("call", "com.example.notes", "add-item", "{}").status == 2)

        // `tessera dev` as the guide says (on a free port, looking for edits every 0.2 s): a broken
        // edit is refused while generation 1 serves; the fix is swapped in.
        let dev = try ChildProcess("/bin/bash", ["-c", PluginGuide.replacingTheShell(with: load[2] + " --port 0 --interval 0.2")], directory: root)
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
        #expect(manifest["sdk"]?["abi"] == "1.10")
        #expect(manifest["sdk"]?["toolchain"] == "6.3.1")
        let packageSwift = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(packageSwift.contains(#"path: "\#(Fixtures.repositoryRoot)/sdk""#))
        // The test target on the SDK's harness, which runs the host's command: not on this
        // repository, whose runtime it would build.
        #expect(!packageSwift.contains(#".package(path: "\#(Fixtures.repositoryRoot)")"#))
        #expect(packageSwift.contains(#".testTarget(name: "My_NotesTests""#))
        #expect(packageSwift.contains(#".product(name: "TesseraPluginTesting", package: "TesseraSDK")"#))
        let tests = try String(contentsOfFile: package + "/Tests/My_NotesTests/My_NotesTests.swift", encoding: .utf8)
        #expect(tests.contains(#"let tessera = "\#(Fixtures.tesseraExecutable)""#), "the tessera that made it runs the tests")
        #expect(tests.contains("HostedPlugin(manifest: manifest, tessera: tessera)") && !tests.contains("{{"))
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
