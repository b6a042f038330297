import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// A device whose hub has gone: `tessera clock set` moves the virtual clock six hours, through
/// some thirty retried sync rounds. Each failed round used to print the same warning, ending in
/// URLSession's `-1004`; now one line says which hub cannot be reached and what the device does
/// next (issue 24). Real processes: a served hub, then the device's `tessera` commands.
@Suite(.serialized, .hangWatchdog) struct HubUnreachableWarningTests {
    @Test func anUnreachableHubIsOneWarningLineNamingItAndWhatComesNext() async throws {
        let (hub, port) = try await SyncProcessesTests.startHub()
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }  // only when an expectation threw
        let device = SyncProcessesTests.Device("far-from-hub", hubPort: port)
        try await device.tessera(["sync", "login", "ada", "--device", "laptop"], input: "correct horse battery\n")
        await hub.terminateAndWait()

        let moved = try await device.tessera(["clock", "set", "2026-03-02T14:00:00Z"])
        #expect(moved.status == 0)
        // Each line: its time, then its level (issue 46).
        let warnings = moved.stderr.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains("Z [warning] ") }
        #expect(warnings.count == 1, "\(moved.stderr)")
        let line = try #require(warnings.first.map(String.init))
        #expect(line.contains("the hub at http://127.0.0.1:\(port) cannot be reached (nothing accepts connections at that address)"), "\(line)")
        #expect(line.contains("keeps its changes and tries again in 1 min, then less often, up to every 15 min"), "\(line)")
        #expect(!moved.stderr.contains("-1004"))
        // The rounds did run (and failed): the device says so when asked.
        let status = try await device.tessera(["sync", "status"])
        #expect(status.status == 0)
    }
}
