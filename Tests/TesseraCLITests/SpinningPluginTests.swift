import Foundation
import Testing
import TesseraTestFixtures

/// Issue 43: in-process plugins that spin hold Swift's shared threads (one per core), which nothing
/// can take back from them. The host's own endpoints must answer all the same, and a SIGTERM or a
/// SIGINT must still end the host within its 2 s grace. `tessera serve` runs the fixture plugin in its own process; one more call
/// than there are cores spins (`spin-until`: a loop that never suspends, until a file exists).
@Suite(.hangWatchdog, .serialized) struct SpinningPluginTests {
    /// SIGTERM (a supervisor's stop) and SIGINT (Ctrl-C) alike.
    @Test(arguments: [SIGTERM, SIGINT])
    func theHostsOwnEndpointsAnswerAndASignalEndsItWhilePluginsHoldEveryPoolThread(signal: Int32) async throws {
        let (process, token, url) = try await CrashingPluginTests.serveTheFixtureInProcess("serve-spinning", operations: ["echo", "spin-until"])
        defer { if process.isRunning { process.killNow() } }
        let scratch = Fixtures.temporaryDirectory("spinning")
        let marks = scratch + "/marks", release = scratch + "/release"
        try FileManager.default.createDirectory(atPath: marks, withIntermediateDirectories: true)
        defer { FileManager.default.createFile(atPath: release, contents: nil) }

        let cores = ProcessInfo.processInfo.activeProcessorCount
        let input = Data(#"{"release": "\#(release)", "marks": "\#(marks)"}"#.utf8)
        for _ in 0...cores {
            Task { _ = try? await Self.request(url + "/v1/plugins/fixture.isolated/ops/spin-until", token: token, body: input, timeout: 600) }
        }
        // Every pool thread of the host is spinning once as many calls as cores have begun (the
        // last one waits in the pool's queue).
        var spinning = 0
        while spinning < cores {
            try await Task.sleep(for: .milliseconds(20))
            spinning = (try? FileManager.default.contentsOfDirectory(atPath: marks).count) ?? 0
        }

        // A minute is a bound on a hang, not a measurement: alone, each answers in milliseconds
        // (beside the whole suite on two busy cores, in seconds). Without threads of the edge's
        // own neither answers at all.
        let askedHealth = ContinuousClock.now
        let health = try await Self.request(url + "/healthz", token: nil, body: nil, timeout: 60)
        #expect(health.status == 200)
        let askedPlugins = ContinuousClock.now
        let plugins = try await Self.request(url + "/v1/plugins", token: token, body: nil, timeout: 60)
        #expect(plugins.status == 200)
        print("while \(spinning) calls spun: /healthz answered in \(askedPlugins - askedHealth), /v1/plugins in \(ContinuousClock.now - askedPlugins)")
        #expect(String(decoding: plugins.body, as: UTF8.self).contains("fixture.isolated"))
        // A monitor goes on asking, each time on a connection of its own: connections are still
        // taken after more have come than the server's queue of accepted ones holds (10) untaken.
        for probe in 1...20 {
            let again = try await Self.request(url + "/healthz", token: nil, body: nil, timeout: 60)
            #expect(again.status == 200, "probe \(probe)")
        }

        // The clean stop waits for the calls in flight, which never end: the host gives it its
        // grace, then ends, saying why.
        let asked = ContinuousClock.now
        kill(process.processIdentifier, signal)
        let status = await process.exitStatus()
        let said = await process.output()
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        print("the host ended \(ContinuousClock.now - asked) after \(name), status \(status): \(said.split(separator: "\n").last ?? "")")
        #expect(status == 0)
        #expect(said.contains("tessera: stopping now: the clean stop took longer than 2 s"), "\(said)")
    }

    /// A request's status and body; throws when no answer comes within `timeout` seconds.
    static func request(_ url: String, token: String?, body: Data?, timeout: TimeInterval) async throws -> (status: Int, body: Data) {
        // A connection of its own: a request never waits behind another test's.
        let response = try await RawHTTPClient.request(body == nil ? "GET" : "POST", url: url, token: token, body: body.map { Array($0) },
                                                       contentType: "application/json", timeout: Int(timeout.rounded(.up)))
        return (response.status, Data(response.body))
    }
}
