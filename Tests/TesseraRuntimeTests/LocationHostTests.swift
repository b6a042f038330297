import Foundation
import Synchronization
import Testing
import TesseraLocation
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// The location feed through a real host: a plugin granted `location` gets accepted fixes in
/// timestamp order; a GPX replay on the virtual clock is the same every run.
@Suite struct LocationHostTests {
    /// What the tracker received.
    final class Seen: Sendable {
        let fixes = Mutex<[LocationFix]>([])
        func withLock<T>(_ body: (inout [LocationFix]) -> T) -> T { fixes.withLock { body(&$0) } }
    }

    final class Tracker: Plugin {
        let seen: Seen
        init(_ seen: Seen) { self.seen = seen }
        func start(context: PluginContext) async throws {
            let feed = try context.capability(.location)
            context.onLocationFix { [seen] fix in seen.withLock { $0.append(fix) } }
            context.onOperation("latest") { call in
                let fix = await feed.latestFix(deviceID: call.input["device"]?.stringValue ?? "")
                return fix.map { ["lat": .number($0.latitude), "lon": .number($0.longitude)] } ?? .null
            }
        }
    }

    static let gpx = """
        <?xml version="1.0"?>
        <gpx version="1.1" creator="test"><trk><trkseg>
        <trkpt lat="50.0870" lon="14.4208"><time>2025-06-01T10:00:00Z</time></trkpt>
        <trkpt lat="50.0875" lon="14.4215"><time>2025-06-01T10:00:30Z</time></trkpt>
        <trkpt lat="50.0880" lon="14.4222"><time>2025-06-01T10:01:00Z</time></trkpt>
        <trkpt lat="50.0886" lon="14.4230"><time>2025-06-01T10:02:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """

    func host(_ name: String, _ seen: Seen) async throws -> PluginHost {
        let ws = FixtureWorkspace(name)
        ws.addManifest(id: "test.track", library: ws.root + "/none.so") { m in
            m["requires"] = [["capability": "location", "version": "^1.0"]]
            m["operations"] = [["name": "latest", "input": ["type": "object"] as [String: Any], "output": [:] as [String: Any]]]
        }
        ws.writeDeployment(plugins: [entry("test.track", grants: ["location": [:] as [String: Any]])])
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory, inProcessPlugins: ["test.track": PluginFactory { Tracker(seen) }]))
        await host.start()
        #expect(host.status(of: "test.track")?.state == .active)
        return host
    }

    /// Replays the track the way `tessera location replay` does on a virtual clock.
    func replay(_ host: PluginHost, speed: Double) async throws {
        let document = try GPXReader().read(Data(Self.gpx.utf8))
        let replay = try GPXReplay(points: document.replayPoints, speed: speed, deviceID: "phone")
        for fix in replay.schedule(startingAt: host.clock.now()) {
            _ = try await host.setClock(to: fix.timestamp)
            _ = await host.ingestLocation([fix])
        }
    }

    @Test func aGPXReplayOnTheVirtualClockIsTheSameEveryRun() async throws {
        var runs: [[LocationFix]] = []
        for run in 0..<2 {
            let seen = Seen()
            let host = try await host("location-replay-\(run)", seen)
            let start = host.clock.now()
            try await replay(host, speed: 60)
            let fixes = seen.withLock { $0 }
            #expect(fixes.count == 4)
            // Two minutes of track at 60× take two seconds of the host's clock.
            #expect(fixes.map { $0.timestamp.timeIntervalSince(start) } == [0, 0.5, 1, 2])
            #expect(host.clock.now() == start.addingTimeInterval(2))
            runs.append(fixes)
            let latest = try await host.call("test.track", "latest", input: ["device": "phone"], as: user)
            #expect(latest["lat"] == .number(50.0886))
            await host.stop()
        }
        #expect(runs[0] == runs[1])
    }

    @Test func badFixesAreDroppedAndCountedAndTheRestArriveInOrder() async throws {
        let seen = Seen()
        let host = try await host("location-bad", seen)
        let now = host.clock.now()
        func fix(_ lat: Double, _ seconds: TimeInterval, device: String = "a") -> LocationFix {
            LocationFix(latitude: lat, longitude: 14.42, timestamp: now.addingTimeInterval(seconds), deviceID: device)
        }
        let report = await host.ingestLocation([
            fix(50.2, -10), fix(50.1, -20), fix(95, -5), fix(50.3, 3600), fix(50.1, -20), fix(50.0, -30, device: "b"),
        ])
        #expect(report.accepted == 3)
        #expect(report.rejected[.outOfRange] == 1)
        #expect(report.rejected[.inTheFuture] == 1)
        #expect(report.rejected[.duplicate] == 1)
        let a = seen.withLock { $0.filter { $0.deviceID == "a" }.map(\.latitude) }
        #expect(a == [50.1, 50.2], "timestamp order within the batch")
        let late = await host.ingestLocation([fix(50.05, -60)])
        #expect(late.rejected[.outOfOrder] == 1)
        await host.stop()
    }
}
