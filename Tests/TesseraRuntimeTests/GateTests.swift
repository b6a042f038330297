import Foundation
import Testing
import TesseraLoader
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Each bad library is refused with a message naming the cause, and the host serves the good plugin
/// beside it.
@Suite struct GateTests {
    /// A copy of the good fixture whose stamp claims other values.
    static func patched(to output: String, major: UInt32? = nil, minor: UInt32? = nil, toolchain: String? = nil) async throws -> String {
        try PluginStamp.patched(file: try await PluginBuilder.library(.good), to: output, sdkABIMajor: major, sdkABIMinor: minor, toolchain: toolchain)
        return output
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let expectedState: LifecycleState
        let reasonContains: [String]
        let make: @Sendable (FixtureWorkspace) async throws -> String  // returns the library path to declare
        var sha256Pin: String? = nil
        var manifestID = "fixture.bad"
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "static SDK copy", expectedState: .rejected, reasonContains: ["gate 1", "link", "embeds its own copy of the SDK"]) { _ in
            try await PluginBuilder.library(.staticSDK)
        },
        Case(name: "SDK major mismatch", expectedState: .rejected, reasonContains: ["sdk.abi.major", "expected 1 (host)", "found 2 (plugin)"]) { ws in
            try await patched(to: ws.root + "/major2.so", major: 2)
        },
        // One minor past the host's, whatever the host's is.
        Case(name: "newer SDK minor than the host", expectedState: .rejected,
             reasonContains: ["sdk.abi.minor", "at most \(SDKVersion.loadedMinor) (host)", "found \(SDKVersion.loadedMinor + 1) (plugin)"]) { ws in
            try await patched(to: ws.root + "/minor-next.so", minor: UInt32(SDKVersion.loadedMinor + 1))
        },
        Case(name: "toolchain mismatch", expectedState: .rejected, reasonContains: ["toolchain", "clang 19.1.0 (plugin)", "Swift 6.3.1"]) { ws in
            try await patched(to: ws.root + "/otherclang.so", toolchain: "clang 19.1.0")
        },
        Case(name: "missing entry symbol", expectedState: .rejected, reasonContains: ["gate 2", "entry", "tessera_plugin_entry", "no such symbol"]) { _ in
            try await PluginBuilder.library(.noEntry)
        },
        Case(name: "handshake reports a newer minor", expectedState: .rejected, reasonContains: ["gate 3", "sdk.abi.minor", "found \(SDKVersion.loadedMinor + 1) (plugin)"]) { _ in
            try await PluginBuilder.library(.handshakeNewerMinor)
        },
        Case(name: "handshake reports another id", expectedState: .rejected, reasonContains: ["gate 3", "id", "fixture.somebody-else (plugin)"]) { _ in
            try await PluginBuilder.library(.wrongID)
        },
        Case(name: "truncated library", expectedState: .rejected, reasonContains: ["gate 1", "library", "truncated"]) { ws in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: try await PluginBuilder.library(.good)))
            try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: ws.root + "/truncated.so"))
            return ws.root + "/truncated.so"
        },
        Case(name: "not an ELF file", expectedState: .rejected, reasonContains: ["gate 1", "library", "not an ELF file"]) { ws in
            Fixtures.write("#!/bin/sh\necho I am not a library\n", to: ws.root + "/script.so")
            return ws.root + "/script.so"
        },
        Case(name: "sha256 mismatch", expectedState: .rejected, reasonContains: ["library.sha256", String(repeating: "ab", count: 32)], make: { _ in
            try await PluginBuilder.library(.good)
        }, sha256Pin: String(repeating: "ab", count: 32)),
        // Issue 43: nothing that can block is opened — the host starts, the good plugin serves.
        Case(name: "a named pipe (FIFO)", expectedState: .rejected, reasonContains: ["named pipe (FIFO), not a file"]) { ws in
            try NonRegularFiles.fifo(ws.root + "/fifo.so")
        },
        Case(name: "a directory", expectedState: .rejected, reasonContains: ["a directory, not a file"]) { ws in
            try FileManager.default.createDirectory(atPath: ws.root + "/folder.so", withIntermediateDirectories: true)
            return ws.root + "/folder.so"
        },
        Case(name: "a device", expectedState: .rejected, reasonContains: ["a device, not a file"]) { _ in "/dev/zero" },
        Case(name: "a socket", expectedState: .rejected, reasonContains: ["a socket, not a file"]) { ws in
            try NonRegularFiles.socket(ws.root + "/socket.so")
        },
        Case(name: "start throws", expectedState: .failed, reasonContains: ["start threw", "the fixture refuses to start"], make: { _ in
            try await PluginBuilder.library(.startThrows)
        }, manifestID: PluginBuilder.pluginID(.startThrows)),
    ]

    @Test(arguments: cases)
    func refusedWithReasonWhileOthersServe(_ c: Case) async throws {
        let ws = FixtureWorkspace("gate")
        let library = try await c.make(ws)
        ws.addManifest(id: c.manifestID, library: library) { m in
            if let pin = c.sha256Pin { m["library"] = ["path": library, "sha256": pin] }
        }
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        ws.writeDeployment(plugins: [entry(c.manifestID), entry("fixture.good")])
        let host = try await startHost(ws)

        let bad = try #require(host.status(of: c.manifestID))
        #expect(bad.state == c.expectedState)
        let reason = try #require(bad.reason)
        for fragment in c.reasonContains {
            #expect(reason.contains(fragment), "reason '\(reason)' should mention '\(fragment)'")
        }
        // The good plugin beside it is active and answers.
        #expect(host.status(of: "fixture.good")?.state == .active)
        let answer = try await host.call("fixture.good", "hello", input: ["name": "ada"], as: admin)
        #expect(answer["hello"] == "ada")
        // Calls to the refused plugin get a clear error naming its state.
        let error = await callError(host, c.manifestID, "hello", [:])
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains(c.expectedState.rawValue) == true)
        await host.stop()
    }

    @Test func hostAndPluginShareOneSDKImage() async throws {
        // The cast of the plugin's factory to the host's PluginFactory type succeeds only if both
        // use the one libTesseraSDK.so.
        let generation = try LibraryLoader.load(path: try await PluginBuilder.library(.good), manifest: nil,
                                                generations: GenerationStore(root: Fixtures.temporaryDirectory("gen")))
        #expect(generation.pluginID == PluginBuilder.pluginID(.good))
        // A dynamic protocol cast across the boundary: the plugin's class, seen as a bare object,
        // conforms to the host's Plugin protocol only if both share the SDK's protocol descriptor.
        let object: AnyObject = generation.handshake.swiftFactory!.makePlugin()
        #expect((object as? any Plugin) != nil)
        // Both the host executable and the shipped plugin resolve the same shared SDK file.
        func sdkLine(_ file: String) async throws -> String? {
            try await runDetached("/usr/bin/ldd", [file]).stdout.split(separator: "\n").first { $0.contains("libTesseraSDK.so") }
                .map { line in String(line.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces) }
        }
        let hostSDK = try #require(try await sdkLine(Fixtures.tesseraExecutable))
        let pluginSDK = try #require(try await sdkLine(Fixtures.exampleLibrary))
        #expect(hostSDK == pluginSDK)
        #expect(hostSDK.contains("=> /"))
    }

    @Test func staticCopyFailsTheCastItself() async throws {
        // Behind the lint: what happens if such a library is loaded anyway. The handshake's cast
        // fails, and the refusal says why.
        let (_, entry) = try LibraryLoader.open(stagedPath: try await PluginBuilder.library(.staticSDK))
        let error = try #require(throws: GateRefusal.self) {
            try LibraryLoader.handshake(entry: entry, expectedID: nil, host: .current)
        }
        #expect(error.gate == 3)
        #expect(error.field == "factory")
        #expect(error.description.contains("embeds its own copy of the SDK"))
    }
}
