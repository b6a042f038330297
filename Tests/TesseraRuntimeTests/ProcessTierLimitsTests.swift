import Foundation
import Testing
import TesseraIsolation
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// What a process-tier child may hold in the host at once (docs/isolation.md, "Threat model"):
/// open file writers, capability calls being answered. Past either limit the host refuses at once
/// with `unavailable` naming it, keeps serving, and the status shows what the child holds.
@Suite(.hangWatchdog) struct ProcessTierLimitsTests {
    @Test func aChildHoldsNoMoreOpenFileWritersThanThePolicyAllowsAndACrashReleasesThem() async throws {
        let ws = FixtureWorkspace("isolation-writer-cap")
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["requires"] = ["storage", "files"].map { ["capability": $0, "version": "^1.0"] }
            m["permissions"] = ["files": ["mediaTypes": ["application/octet-stream"], "quotaMB": 10, "maxFileMB": 1]]
            m["operations"] = ["open-writers", "crash", "echo"].map { ["name": $0, "input": anyOp, "output": [:] as [String: Any]] }
        }
        ws.writeDeployment(plugins: [entry("fixture.isolated", grants: ["storage": [:] as [String: Any], "files": [:] as [String: Any]],
                                           extra: ["isolation": "process"])])
        var options = HostOptions(dataDirectory: ws.dataDirectory)
        options.isolation = IsolationPolicy(firstBackoff: 0, maxOpenFileWriters: 3)  // a crash restarts at the next call
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: options)
        await host.start()
        try await withCleanup({ await host.stop() }) {
            let before = try #require(host.status(of: "fixture.isolated")?.isolation)
            #expect(before.tier == "process" && before.openFileWriters == 0 && before.recentCrashes == 0)
            #expect(before.pid == host.isolatedProcessID("fixture.isolated"))

            let first = try await host.call("fixture.isolated", "open-writers", input: ["count": 5], as: user)
            #expect(first["opened"] == 3, "\(first)")
            #expect(first["refused"] == "unavailable")
            #expect(first["message"]?.stringValue?.contains("3 open file writers") == true, "\(first)")
            #expect(host.status(of: "fixture.isolated")?.isolation.openFileWriters == 3)
            #expect(host.status(of: "fixture.isolated")?.json["isolation"]?["openFileWriters"] == 3)

            // The child dies holding them: the host cancels all three, and the new child may open its own.
            let firstChild = host.isolatedProcessID("fixture.isolated")
            let crashed = await callError(host, "fixture.isolated", "crash", ["kind": "abort"])
            #expect(crashed?.code == .pluginCrashed, "\(String(describing: crashed))")
            let afterCrash = try #require(host.status(of: "fixture.isolated")?.isolation)
            // With no backoff the restart may already have a new child serving (never the crashed one).
            #expect(afterCrash.openFileWriters == 0 && afterCrash.recentCrashes == 1 && afterCrash.pid != firstChild, "\(afterCrash)")
            #expect(afterCrash.lastCrash?.contains("SIGABRT") == true, "\(afterCrash)")
            let again = try await host.call("fixture.isolated", "open-writers", input: ["count": 3], as: user)
            #expect(again["opened"] == 3 && again["refused"] == nil, "\(again)")
            let serving = host.status(of: "fixture.isolated")?.isolation.pid
            #expect(serving != nil && serving != firstChild)
            await host.stop()
        }
    }

    @Test func callsPastTheInFlightLimitAreRefusedAtOnceAndTheOthersAnswered() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let entered = AsyncStream<Void>.makeStream()
        let gate = Gate()
        let host = PeerConnection(fd: fds[0], maxCallsInFlight: 2) { method, params in
            entered.continuation.yield()
            if method == "slow" { await gate.wait() }
            return params
        }
        let child = PeerConnection(fd: fds[1]) { _, _ in .null }
        host.start { PluginError(.unavailable, "closed") }
        child.start { PluginError(.unavailable, "closed") }
        async let first = child.call("slow", 1)
        async let second = child.call("slow", 2)
        var calls = entered.stream.makeAsyncIterator()
        _ = await calls.next()
        _ = await calls.next()  // both are being answered now

        do {
            _ = try await child.call("fast", 3)
            Issue.record("a third call was admitted past the limit of 2")
        } catch let error as PluginError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("2 calls are being answered"), "\(error.message)")
        }
        await gate.open()
        #expect(try await first == 1)
        #expect(try await second == 2)
        #expect(try await child.call("fast", 4) == 4)  // counted out before their answers went
        host.shutDown()
        child.shutDown()
    }
}

/// Holds callers until opened.
private actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }
    func open() {
        isOpen = true
        for c in waiting { c.resume() }
        waiting = []
    }
}

/// A call sent to a child that has just died fails with how the child ended (what the host's
/// reader names: `plugin_crashed` and the signal), never with the write's errno. Seen as `internal`
/// errors in `tessera-bench isolation`, whose crash rounds call a child the moment it is killed.
@Suite(.hangWatchdog) struct PeerConnectionEndTests {
    @Test func aCallToAPeerThatIsGoneFailsWithTheReadersReasonNotTheWritesErrno() async throws {
        for _ in 0..<20 {
            var fds: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            close(fds[1])  // the child is gone before the call
            let host = PeerConnection(fd: fds[0]) { _, _ in .null }
            // The call goes first, the reader starts after (or around) it: either way the answer is the reader's.
            let call = Task { try await host.call("echo", 1) }
            host.start { PluginError(.pluginCrashed, "its process was killed by SIGKILL (signal 9)") }
            do {
                _ = try await call.value
                Issue.record("a call to a closed peer was answered")
            } catch let error as PluginError {
                #expect(error.code == .pluginCrashed, "\(error)")
            } catch {
                Issue.record("failed with \(error), not the reader's plugin_crashed")
            }
            close(fds[0])
        }
    }
}
