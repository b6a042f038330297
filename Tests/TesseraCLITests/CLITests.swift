import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The `tessera` executable, run as a person would, against a temporary deployment with a virtual
/// clock. Each command is a separate process sharing the data directory.
@Suite struct CLITests {
    let ws: FixtureWorkspace

    init() {
        ws = FixtureWorkspace("cli")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
    }

    func tessera(_ arguments: String..., input: String? = nil) async throws -> ProcessResult {
        try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory], input: input)
    }

    @Test func callStoresAndReadsAcrossProcesses() async throws {
        let added = try await tessera("call", "dev.tessera.example", "add-note", #"{"text": "from the CLI"}"#)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try JSONValue(parsing: added.stdout)["at"] == "2026-03-02T08:00:00Z")
        let fromStdin = try await tessera("call", "dev.tessera.example", "add-note", "-", input: #"{"text": "from stdin"}"#)
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        let listed = try await tessera("call", "dev.tessera.example", "list-notes", "--json")
        #expect(listed.status == 0)
        let texts = try JSONValue(parsing: listed.stdout)["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue }
        #expect(Set(texts ?? []) == ["from the CLI", "from stdin"])
        #expect(!listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines).contains("\n"))  // --json: one line
    }

    @Test func badInputIsOneLineOnStderrWithItsExitCode() async throws {
        let invalid = try await tessera("call", "dev.tessera.example", "add-note", #"{"text": ""}"#)
        #expect(invalid.status == 2)
        #expect(invalid.stderr.hasPrefix("tessera: invalid_input:"))
        #expect(invalid.stderr.contains("$.text"))
        #expect(invalid.stderr.split(separator: "\n").count == 1)
        let notJSON = try await tessera("call", "dev.tessera.example", "add-note", "{text")
        #expect(notJSON.status == 2)
        let unknownPlugin = try await tessera("call", "nope", "x")
        #expect(unknownPlugin.status == 3)
        let unknownOp = try await tessera("call", "dev.tessera.example", "nope")
        #expect(unknownOp.status == 3)
        let asJSON = try await tessera("call", "dev.tessera.example", "add-note", #"{"text": 7}"#, "--json")
        #expect(try JSONValue(parsing: asJSON.stdout)["error"]?["field"] == "$.text")
    }

    @Test func virtualClockIsSharedAndAdvancingFiresTimers() async throws {
        #expect(try await tessera("clock", "show").stdout.hasPrefix("2026-03-02T08:00:00Z (virtual clock)"))
        let reminded = try await tessera("call", "dev.tessera.example", "remind", #"{"text": "stretch", "in": "2h"}"#)
        #expect(reminded.status == 0, "\(reminded.stderr)")
        let advanced = try await tessera("clock", "advance", "2h30m")
        #expect(advanced.status == 0, "\(advanced.stderr)")
        #expect(advanced.stdout.contains("2026-03-02T10:00:00Z  dev.tessera.example  reminder:"))
        #expect(advanced.stdout.contains("fired"))
        #expect(try await tessera("clock", "show").stdout.hasPrefix("2026-03-02T10:30:00Z"))
        let reminders = try JSONValue(parsing: try await tessera("call", "dev.tessera.example", "list-reminders").stdout)
        #expect(reminders["reminders"]?.arrayValue?.first?["firedAt"] == "2026-03-02T10:00:00Z")
        let set = try await tessera("clock", "set", "2026-03-05T00:00:00Z")
        #expect(set.stdout.contains("daily-summary"))
        #expect(try await tessera("clock", "advance", "soon").status == 2)
        #expect(try await tessera("clock", "set", "yesterday").status == 2)
    }

    @Test func aReminderReachesTheInboxWhenNotificationsAreGranted() async throws {
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": [
            "storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any]]]])
        #expect(try await tessera("call", "dev.tessera.example", "remind", #"{"text": "tea", "in": "10m"}"#).status == 0)
        #expect(try await tessera("notifications", "list").stdout.hasPrefix("no notifications"))
        #expect(try await tessera("clock", "advance", "15m").status == 0)
        let listed = try await tessera("notifications", "list", "--json")
        #expect(listed.status == 0, "\(listed.stderr)")
        let inbox = try JSONValue(parsing: listed.stdout)
        let entry = try #require(inbox["notifications"]?.arrayValue?.first)
        #expect(entry["title"] == "tea")
        #expect(entry["dueAt"] == "2026-03-02T08:10:00Z")
        #expect(entry["late"] == false)
        #expect(inbox["counters"]?["delivered"] == .integer(1))
        let people = try await tessera("notifications", "list", "--unread")
        #expect(people.stdout.contains("dev.tessera.example: tea"))
        let id = try #require(entry["id"]?.integerValue)
        #expect(try await tessera("notifications", "read", String(id)).stdout.contains("marked 1 read"))
        #expect(try await tessera("notifications", "list", "--unread").stdout.hasPrefix("no unread notifications"))
        #expect(try await tessera("notifications", "read").status == 2)
    }

    @Test func locationIngestAndReplayCountWhatTheyTookAndDropped() async throws {
        let owntracks = #"""
            [{"_type": "location", "lat": 50.087, "lon": 14.421, "tst": 1772434800, "acc": 12, "vel": 36, "topic": "owntracks/ada/phone"},
             {"_type": "location", "lat": 95.0, "lon": 14.421, "tst": 1772434810, "topic": "owntracks/ada/phone"},
             {"_type": "transition", "event": "enter", "tst": 1772434820},
             {"_type": "location", "lat": 50.088, "lon": 14.422, "tst": 1772434830, "topic": "owntracks/ada/phone"}]
            """#
        let ingested = try await tessera("location", "ingest", "-", "--json", input: owntracks)
        #expect(ingested.status == 0, "\(ingested.stderr)")
        let report = try JSONValue(parsing: ingested.stdout)
        #expect(report["accepted"] == .integer(2))
        #expect(report["skipped"] == .integer(1))
        #expect(report["rejected"]?["outOfRange"] == .integer(1))
        let notJSON = try await tessera("location", "ingest", "-", input: "{lat")
        #expect(notJSON.status == 0)
        #expect(notJSON.stdout.contains("dropped 1 malformed"))

        let gpx = ws.root + "/walk.gpx"
        Fixtures.write("""
            <?xml version="1.0"?><gpx version="1.1" creator="t"><trk><trkseg>
            <trkpt lat="50.0870" lon="14.4208"><time>2025-06-01T10:00:00Z</time></trkpt>
            <trkpt lat="50.0880" lon="14.4222"><time>2025-06-01T10:30:00Z</time></trkpt>
            <trkpt lat="50.0886" lon="14.4230"><time>2025-06-01T11:00:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """, to: gpx)
        let replayed = try await tessera("location", "replay", gpx, "--speed", "60", "--device", "walker")
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout.contains("accepted 3 fixes"))
        // An hour of track at 60× is a minute of the virtual clock.
        #expect(try await tessera("clock", "show").stdout.hasPrefix("2026-03-02T08:01:00Z"))
        #expect(try await tessera("location", "replay", ws.root + "/none.gpx").status == 2)
    }

    @Test func pluginsListWhyAndVerify() async throws {
        let list = try await tessera("plugins", "list", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        let first = try JSONValue(parsing: list.stdout).arrayValue?.first
        #expect(first?["id"] == "dev.tessera.example")
        #expect(first?["state"] == "validated")
        let started = try JSONValue(parsing: try await tessera("plugins", "list", "--json", "--start").stdout).arrayValue?.first
        #expect(started?["state"] == "active")
        let table = try await tessera("plugins", "list")
        #expect(table.stdout.contains("dev.tessera.example"))
        #expect(table.stdout.hasPrefix("ID"))
        let why = try await tessera("plugins", "why", "dev.tessera.example")
        #expect(why.stdout.contains("active"))
        #expect(why.stdout.contains("gate 1 passed"))
        #expect(try await tessera("plugins", "why", "nope").status == 3)

        let good = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "verify", "--load", Fixtures.exampleLibrary, "--manifest", Fixtures.exampleManifest])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("gate 3 ok (handshake: dev.tessera.example"))
        Fixtures.write("not a library", to: ws.root + "/fake.so")
        let bad = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "verify", ws.root + "/fake.so"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("not an ELF file"))
    }

    /// Issue 46: a manifest folder every user may write in is not read (a manifest there could be
    /// anyone's), and `plugins list` says so and exits 6 for the enabled plugin it left without a
    /// manifest; moved to the owner's own folder, the same manifest is read.
    @Test func aManifestFolderEveryoneMayWriteInIsNotReadAndAnEnabledPluginRefusedIsExitSix() async throws {
        let open = ws.root + "/open-manifests"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ws.root + "/example.json", toPath: open + "/example.json")
        #expect(chmod(open, 0o1777) == 0)
        let file = ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]],
                                      extra: ["manifestDirectories": [open]])
        let refused = try await tessera("plugins", "list")
        #expect(refused.status == 6, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("dev.tessera.example is rejected") && refused.stderr.contains("every user may write there")
                && refused.stderr.contains(open), "\(refused.stderr)")
        #expect(chmod(open, 0o755) == 0)
        let read = try await tessera("plugins", "list")
        #expect(read.status == 0 && read.stdout.contains("validated"), "\(read.stderr) (\(file))")
    }

    @Test func invalidDeploymentIsExitSixNamingTheFile() async throws {
        Fixtures.write(#"{"name": "x", "role": "phone", "plugins": []}"#, to: ws.root + "/bad-deployment.json")
        let result = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "list", "--deployment", ws.root + "/bad-deployment.json"])
        #expect(result.status == 6)
        #expect(result.stderr.contains("bad-deployment.json: $.role"))
    }
}

/// `tessera serve` starts the plugins, says so, and stops cleanly on SIGTERM.
@Suite struct ServeTests {
    /// Starts `tessera serve` on `ws` and reads its output until it says it is serving (or dies).
    /// Port 0: the test must not depend on the default port being free on a shared machine.
    static func serve(_ ws: FixtureWorkspace) async throws -> (ChildProcess, String) {
        let process = try ChildProcess(Fixtures.tesseraExecutable, ["serve", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory, "--port", "0"])
        return (process, await process.output(until: "Ctrl-C to stop"))
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func serveStartsListsAndStopsOnSIGTERM() async throws {
        let ws = FixtureWorkspace("serve")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let (process, text) = try await Self.serve(ws)
        #expect(text.contains("dev.tessera.example"))
        #expect(text.contains("active"))
        #expect(text.contains("serving deployment 'test'"))
        process.terminate()  // SIGTERM
        let rest = await process.output()
        #expect(await process.exitStatus() == 0)
        #expect(rest.contains("stopped"))
    }

    /// Foundation's networking and XML are in a library loaded on first use (OnDemandFoundation):
    /// a serving host that has sent no request and read no GPX maps none of them, nor libcurl or
    /// libxml2 beneath them.
    @Test(.hangWatchdog) func aServingHostMapsNoNetworkingOrXMLLibraryUntilOneIsNeeded() async throws {
        let ws = FixtureWorkspace("serve-maps")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let (process, text) = try await Self.serve(ws)
        try await withCleanup({ await process.terminateAndWait() }) {
            #expect(text.contains("serving deployment 'test'"))
            let maps = try Self.readProcFile("/proc/\(process.processIdentifier)/maps")
            #expect(maps.contains("libFoundation.so"), "the maps of the right process were read")
            for library in ["libFoundationNetworking", "libFoundationXML", "libcurl", "libxml2", "libTesseraFoundationOnDemand"] {
                #expect(!maps.contains(library), "\(library) is mapped at start")
            }
        }
    }

    /// A file under `/proc`, read to its end (its size reads 0, and one read gives one page).
    static func readProcFile(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `tessera plugins swap` against a running `tessera serve`: a new build of the example plugin
    /// takes over; a file that is not a plugin is refused with its gate and the old one serves on.
    @Test(.hangWatchdog) func swapReplacesTheRunningBuildOfAServingHost() async throws {
        let ws = FixtureWorkspace("serve-swap")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        // A new build: the same library with a byte appended (a new sha256, so a new staged path).
        let build = ws.root + "/libTesseraExample-next.so"
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.buildDirectory + "/libTesseraExample.so"))
        try (original + Data([0])).write(to: URL(fileURLWithPath: build))
        Fixtures.write("not a plugin", to: ws.root + "/broken.so")

        let (process, text) = try await Self.serve(ws)
        try await withCleanup({ await process.terminateAndWait() }) {
            let lines = text.split(separator: "\n").map(String.init)
            let token = try #require(lines.firstIndex { $0.hasPrefix("admin token") }.map { lines[$0 + 1].trimmingCharacters(in: .whitespaces) })
            let url = try #require(text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression).map { String(text[$0]) })

            func swap(_ path: String, token: String) async throws -> ProcessResult {
                try await runDetached(Fixtures.tesseraExecutable, ["plugins", "swap", "dev.tessera.example", path, "--url", url, "--token", token,
                                                     "--deployment", ws.deploymentFile])
            }
            let swapped = try await swap(build, token: token)
            #expect(swapped.status == 0, "\(swapped.stderr)")
            #expect(swapped.stdout.contains("dev.tessera.example: generation 2 serving"))
            let listed = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "list", "--running", "--url", url, "--token", token,
                                                              "--deployment", ws.deploymentFile])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("2 (+1 retired, \((original.count + 1) / 1024) KiB mapped)"), "\(listed.stdout)")
            let refused = try await swap(ws.root + "/broken.so", token: token)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("gate 1"))
            #expect(refused.stderr.contains("generation keeps serving"))
            let unauthorized = try await swap(build, token: "not-a-token")
            #expect(unauthorized.status == 4)
        }
    }
}
