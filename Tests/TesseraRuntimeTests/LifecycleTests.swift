import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

@Suite struct LifecycleTests {
    @Test func activePluginWalksTheHappyPathInOrder() async throws {
        let ws = FixtureWorkspace("life")
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        ws.writeDeployment(plugins: [entry("fixture.good")])
        let host = try await startHost(ws)
        let status = try #require(host.status(of: "fixture.good"))
        #expect(status.state == .active)
        #expect(status.reason == nil)
        #expect(status.generation == 1)
        #expect(status.history.map { String($0.prefix { $0 != ":" }) }
                == ["discovered", "validated", "loaded", "resolved", "starting", "active"])
        await host.stop()
        #expect(host.status(of: "fixture.good")?.state == .stopped)
    }

    @Test func validationDepthRunsNoPluginCode() async throws {
        let ws = FixtureWorkspace("validate")
        ws.addManifest(id: PluginBuilder.pluginID(.startThrows), library: try await PluginBuilder.library(.startThrows))
        ws.writeDeployment(plugins: [entry(PluginBuilder.pluginID(.startThrows))])
        let host = try await startHost(ws, depth: .validated)
        // Its start would throw; at validation depth it is never loaded, so it is merely validated.
        #expect(host.status(of: PluginBuilder.pluginID(.startThrows))?.state == .validated)
    }

    @Test func disabledAndUnlistedPluginsSayWhy() async throws {
        let ws = FixtureWorkspace("disabled")
        let good = try await PluginBuilder.library(.good)
        ws.addManifest(id: "fixture.off", library: good)
        ws.addManifest(id: "fixture.unlisted", library: good)
        ws.writeDeployment(plugins: [entry("fixture.off", extra: ["enabled": false])])
        let host = try await startHost(ws)
        let off = try #require(host.status(of: "fixture.off"))
        #expect(off.state == .disabled)
        #expect(off.reason?.contains("$.plugins[0].enabled") == true)
        let unlisted = try #require(host.status(of: "fixture.unlisted"))
        #expect(unlisted.state == .disabled)
        #expect(unlisted.reason?.contains("not enabled in deployment 'test'") == true)
    }

    @Test func deploymentProblemsRejectOnlyThatPlugin() async throws {
        let ws = FixtureWorkspace("deploy")
        let good = try await PluginBuilder.library(.good)
        ws.addManifest(id: "fixture.version", library: good)
        ws.addManifest(id: "fixture.overgrant", library: good) { m in
            m["requires"] = [["capability": "clock", "version": "^1.0"]]
            m["permissions"] = ["clock": ["timers": false, "maxTimers": 10]]
        }
        ws.addManifest(id: "fixture.ungranted", library: good) { m in
            m["requires"] = [["capability": "storage", "version": "^1.0"]]
        }
        ws.addManifest(id: "fixture.unknowncap", library: good) { m in
            m["requires"] = [["capability": "teleport", "version": "^1.0"]]
        }
        ws.addManifest(id: "fixture.oldcap", library: good) { m in
            m["requires"] = [["capability": "storage", "version": "^2.0"]]
        }
        ws.addManifest(id: "fixture.badconfig", library: good) { m in
            m["config"] = ["type": "object", "required": ["currency"], "properties": ["currency": ["type": "string", "pattern": "^[A-Z]{3}$"]]]
        }
        ws.addManifest(id: "fixture.good", library: good)
        ws.writeDeployment(plugins: [
            entry("fixture.version", extra: ["version": "^2.0"]),
            entry("fixture.overgrant", grants: ["clock": ["maxTimers": 50]]),
            entry("fixture.ungranted", grants: [:]),
            entry("fixture.unknowncap", grants: [:]),
            entry("fixture.oldcap", grants: ["storage": [:] as [String: Any]]),
            entry("fixture.badconfig", extra: ["config": ["currency": "euro"]]),
            entry("fixture.good"),
        ])
        let host = try await startHost(ws)
        func reason(_ id: String) -> String { host.status(of: id)?.reason ?? "<none>" }
        #expect(host.status(of: "fixture.version")?.state == .rejected)
        #expect(reason("fixture.version").contains("expected a version in ^2.0, found 1.0.0"))
        #expect(reason("fixture.overgrant").contains("$.plugins[1].grants.clock.maxTimers"))
        #expect(reason("fixture.overgrant").contains("at most 10"))
        #expect(reason("fixture.ungranted").contains("requires capability 'storage'"))
        #expect(reason("fixture.ungranted").contains("does not grant"))
        #expect(reason("fixture.unknowncap").contains("'teleport'"))
        #expect(reason("fixture.unknowncap").contains("does not provide"))
        #expect(reason("fixture.oldcap").contains("this host provides 1.0.0"))
        #expect(reason("fixture.badconfig").contains("$.plugins[5].config.currency"))
        #expect(host.status(of: "fixture.good")?.state == .active)
    }

    @Test func grantForACapabilityTheManifestDoesNotAskForIsRefused() async throws {
        let ws = FixtureWorkspace("grant")
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        ws.writeDeployment(plugins: [entry("fixture.good", grants: ["storage": [:] as [String: Any], "clock": [:] as [String: Any]])])
        let host = try await startHost(ws)
        let status = try #require(host.status(of: "fixture.good"))
        #expect(status.state == .rejected)
        #expect(status.reason?.contains("'clock', which its manifest does not ask for") == true)
    }

    @Test func brokenManifestIsAttributedToItsPluginAndOthersStart() async throws {
        let ws = FixtureWorkspace("badmanifest")
        ws.addManifest(id: "fixture.broken", library: try await PluginBuilder.library(.good)) { m in m["version"] = "one" }
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        ws.writeDeployment(plugins: [entry("fixture.broken"), entry("fixture.good")])
        let host = try await startHost(ws)
        let broken = try #require(host.status(of: "fixture.broken"))
        #expect(broken.state == .rejected)
        #expect(broken.reason?.contains("fixture.broken.json: $.version") == true)
        #expect(host.status(of: "fixture.good")?.state == .active)
    }

    @Test func unknownPluginAndOperationAndRoleAreRefusedBeforeDispatch() async throws {
        let ws = FixtureWorkspace("dispatch")
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good)) { m in
            var ops = m["operations"] as! [[String: Any]]
            ops[0]["roles"] = ["admin"]
            m["operations"] = ops
        }
        ws.writeDeployment(plugins: [entry("fixture.good")])
        let host = try await startHost(ws)
        #expect(await callError(host, "fixture.nope", "hello", [:])?.code == .notFound)
        #expect(await callError(host, "fixture.good", "nope", [:])?.code == .notFound)
        let forbidden = await callError(host, "fixture.good", "hello", [:], as: user)
        #expect(forbidden?.code == .forbidden)
        #expect(forbidden?.message.contains("'user'") == true)
        #expect(await callError(host, "fixture.good", "hello", [:], as: admin) == nil)
    }
}

@Suite struct ConcurrencyTests {
    @Test func concurrentCallsAllLandOnce() async throws {
        let ws = FixtureWorkspace("concurrent")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let host = try await startHost(ws)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<100 {
                group.addTask { _ = try await host.call("dev.tessera.example", "add-note", input: ["text": .string("note \(i)")], as: user) }
            }
            try await group.waitForAll()
        }
        let notes = try await host.call("dev.tessera.example", "list-notes", input: ["limit": 500], as: user)
        let texts = Set(notes["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? [])
        #expect(texts == Set((0..<100).map { "note \($0)" }))
    }
}
