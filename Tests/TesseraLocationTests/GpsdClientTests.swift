#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
import TesseraLocation
import TesseraSDK
import TesseraTestFixtures

/// The gpsd client against a real gpsd, fed by gpsfake from an NMEA log. Waiting for gpsd is real
/// time, so the waits are generous and nothing asserts on how long anything took.
@Suite struct GpsdClientTests {
    /// One position of the NMEA log: the GGA time (seconds after 12:00:00) and the position.
    struct LoggedPosition {
        let second: Int
        let latitude: Double
        let longitude: Double
    }

    /// The positions in `drive.nmea`, read straight from its GGA sentences (ddmm.mmmmm, hemisphere).
    static func loggedPositions() throws -> [LoggedPosition] {
        let text = try String(contentsOf: fixtureURL("drive.nmea"), encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$GPGGA") }.map { sentence in
            let f = sentence.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            func degrees(_ value: String, _ degreeDigits: Int, _ hemisphere: String) -> Double {
                let d = Double(value.prefix(degreeDigits))! + Double(value.dropFirst(degreeDigits))! / 60
                return hemisphere == "S" || hemisphere == "W" ? -d : d
            }
            return LoggedPosition(second: Int(f[1].dropFirst(4).prefix(2))!,
                                  latitude: degrees(f[2], 2, f[3]), longitude: degrees(f[4], 3, f[5]))
        }
    }

    @Test(.needs("gpsfake", "gpsd")) func fixesFromARealGpsdMatchTheNMEALog() async throws {
        let gpsfake = try #require(Self.executable("gpsfake"))
        let logged = try Self.loggedPositions()
        #expect(logged.count == 20)
        let port = try Self.freePort()
        // -P: gpsd's port; -c 0.1: a sentence every 0.1 s; -1: play the log once; gpsfake waits for
        // a client to connect before it starts playing.
        let fake = try ChildProcess(gpsfake, ["-P", String(port), "-c", "0.1", "-1", fixtureURL("drive.nmea").path], stdout: .null)
        try await withCleanup({ await Self.stop(fake) }) {

            // Started at once: the client retries until gpsd listens.
            let lines = Mutex<[String]>([])
            let client = GpsdClient(port: port, minimumBackoff: 0.2, maximumBackoff: 1, log: { line in lines.withLock { $0.append(line) } })
            let fixes = await Self.collect(from: client, untilSecond: 19, timeout: 90)
            let clientLog = lines.withLock { $0.joined(separator: "\n") }

            // gpsd needs the first seconds of the log to recognise the receiver; after that every cycle
            // gives one fix. Each must carry its sentence's time and position.
            #expect(fixes.count >= 5, "got \(fixes.count) fixes; the client's log:\n\(clientLog)")
            let day = Date(timeIntervalSince1970: 1_714_564_800)  // 2024-05-01T12:00:00Z, the log's RMC date and hour
            for fix in fixes {
                let second = Int(fix.timestamp.timeIntervalSince(day).rounded())
                let position = try #require(logged.first { $0.second == second }, "no logged position at second \(second)")
                #expect(abs(fix.latitude - position.latitude) < 1e-6 && abs(fix.longitude - position.longitude) < 1e-6,
                        "second \(second): \(fix.latitude), \(fix.longitude) vs \(position.latitude), \(position.longitude)")
                #expect(fix.deviceID.hasPrefix("/dev/"))
                #expect(abs((fix.speed ?? 0) - 19.4 * 1852 / 3600) < 0.05)
            }
            #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
            #expect(fixes.last.map { Int($0.timestamp.timeIntervalSince(day).rounded()) } == 19)
        }
    }

    @Test func aClientWithNothingToConnectToStopsWhenCancelled() async throws {
        let port = try Self.freePort()
        let task = Task { await GpsdClient(port: port, minimumBackoff: 0.05, maximumBackoff: 0.1).run { _ in } }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await task.value  // returns: the reading thread saw the stop and finished the stream
    }

    /// Fixes from `client` until one at `second` past 12:00 arrives or `timeout` real seconds pass.
    static func collect(from client: GpsdClient, untilSecond second: Int, timeout: TimeInterval) async -> [LocationFix] {
        let stream = client.fixes()
        return await withTaskGroup(of: [LocationFix]?.self) { group in
            group.addTask {
                var fixes: [LocationFix] = []
                for await fix in stream {
                    fixes.append(fix)
                    if Int(fix.timestamp.timeIntervalSince1970) % 60 == second { break }
                }
                return fixes
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }

    /// Stops gpsfake and the gpsd it started. gpsfake 3.22 does not always exit after its one pass,
    /// nor on SIGTERM once its gpsd has gone, so: SIGTERM, a grace period, then SIGKILL to both.
    /// The grace period is waited out on a thread of its own, not on one of Swift concurrency's two.
    static func stop(_ fake: ChildProcess) async {
        _ = try? await onOwnThread { stopNow(fake) }
    }

    private static func stopNow(_ fake: ChildProcess) {
        let pid = fake.processIdentifier
        let children = childProcesses(of: pid)
        if fake.isRunning { fake.terminate() }
        let deadline = Date().addingTimeInterval(5)
        while fake.isRunning, Date() < deadline { usleep(50_000) }
        if fake.isRunning { kill(pid, SIGKILL) }
        for child in children { kill(child, SIGKILL) }
        fake.waitUntilExit()
    }

    /// The ids of the processes whose parent is `pid`, from /proc.
    static func childProcesses(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            // After "pid (comm) state " comes the parent's id.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    /// A TCP port nobody listens on right now.
    static func freePort() throws -> UInt16 { UInt16(try freeLoopbackPort()) }

    /// The path of `name` on PATH (or in the usual system directories), if it is installed.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin", "/usr/local/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
