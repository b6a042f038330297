import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// The child's event loop (docs/isolation.md, "Threads"): the child's reader thread runs the
/// handlers, so a synchronous call that waits for the host (`HostClock.now()`) must read the
/// socket itself when made there, or the child would wait for an answer only it can read.
@Suite(.hangWatchdog) struct ProcessEventLoopTests {
    /// The virtual clock's start in `FixtureWorkspace.writeDeployment`.
    static let clockStart = ISO8601DateFormatter().date(from: "2026-03-02T08:00:00Z")!

    func host(_ name: String) async throws -> PluginHost {
        let ws = FixtureWorkspace(name)
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["requires"] = ["storage", "clock"].map { ["capability": $0, "version": "^1.0"] }
            m["operations"] = ["echo", "add-note", "notes", "clock-reads"].map { ["name": $0, "input": anyOp, "output": anyOp] }
        }
        ws.writeDeployment(plugins: [entry("fixture.isolated", grants: ["storage": [:] as [String: Any], "clock": [:] as [String: Any]],
                                           extra: ["isolation": "process"])])
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(dataDirectory: ws.dataDirectory))
        await host.start()
        return host
    }

    @Test func aHandlerRunsOnTheChildsReaderThreadAndReadsTheHostsClockThereAndOffIt() async throws {
        let host = try await host("event-loop-clock")
        try await withCleanup({ await host.stop() }) {
            #expect(host.status(of: "fixture.isolated")?.state == .active, "\(host.status(of: "fixture.isolated")?.history ?? [])")
            let answer = try await host.call("fixture.isolated", "clock-reads", input: [:], as: user)
            // The handler starts on the child's reader thread (the event loop), and is resumed there
            // by the host's answer and by a task's value.
            #expect(answer["atStart"] == "tessera-loop", "\(answer)")
            #expect(answer["afterHost"] == "tessera-loop", "\(answer)")
            #expect(answer["afterDetached"] == "tessera-loop", "\(answer)")
            // The host's virtual time, read from the loop's thread (it pumps the socket for its answer)
            // and from a detached task (it blocks its own thread while the loop reads the answer).
            #expect(answer["onHandler"]?.doubleValue == Self.clockStart.timeIntervalSince1970, "\(answer)")
            #expect(answer["offHandler"]?.doubleValue == Self.clockStart.timeIntervalSince1970, "\(answer)")
        }
    }

    @Test func manyCallsThatReadTheClockWhileOthersArriveAreAllAnswered() async throws {
        let host = try await host("event-loop-concurrent")
        try await withCleanup({ await host.stop() }) {
            // Each add-note reads the clock synchronously on the loop, then writes through the host:
            // while one waits for the clock, the frames of the others (calls and the answers to their
            // writes) arrive and are handed on, to run once it has its answer.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<40 {
                    group.addTask {
                        if i % 2 == 0 {
                            _ = try await host.call("fixture.isolated", "add-note", input: ["id": .string("n\(i)"), "text": .string("note \(i)")], as: user)
                        } else {
                            let answer = try await host.call("fixture.isolated", "clock-reads", input: [:], as: user)
                            #expect(answer["onHandler"]?.doubleValue == Self.clockStart.timeIntervalSince1970)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let notes = try await host.call("fixture.isolated", "notes", input: [:], as: user)
            #expect(notes.arrayValue?.count == 20, "\(notes)")
            #expect(notes.arrayValue?.allSatisfy { $0["at"] == "2026-03-02T08:00:00Z" } == true, "\(notes)")
        }
    }
}
