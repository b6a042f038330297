import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Issue 46: `tessera serve` as a systemd service would run it. Its output is the journal
/// (`JOURNAL_STREAM` names the stream), so the first start's admin token is not printed but
/// written to `<data>/admin-token`, 0600, and the output says where; everything the host writes
/// in its data directory is its user's alone (folders 0700, files 0600); the probes answer
/// without a token.
@Suite struct ServeAsServiceTests {
    @Test(.hangWatchdog) func theAdminTokenIsNeverInTheJournalAndTheDataIsPrivate() async throws {
        let ws = FixtureWorkspace("http-serve-service")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        // The shell names its own standard output (the test's pipe) as the journal's stream, as
        // systemd does for a service's, then becomes the host.
        let script = #"export JOURNAL_STREAM=$(stat -L -c '%d:%i' /proc/$$/fd/1); exec "$0" "$@""#
        let serve = try await ServeProcess.reading(try ChildProcess("/bin/sh", ["-c", script, Fixtures.tesseraExecutable, "serve",
                                                                            "--deployment", ws.deploymentFile, "--data", ws.dataDirectory, "--port", "0"]))
        defer { serve.process.terminate() }
        let output = serve.output, port = serve.port
        #expect(!output.contains("tsr_"), "a token in the journal: \(output)")
        let tokenFile = ws.dataDirectory + "/admin-token"
        #expect(output.contains("admin token written to \(tokenFile)"), "\(output)")
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("tsr_"))
        #expect(try await RawHTTPClient.request(port: port, "GET", "/v1/plugins", headers: [("Authorization", "Bearer \(token)")]).status == 200)
        // A probe carries no token, and learns nothing but ready.
        let ready = try await RawHTTPClient.request(port: port, "GET", "/readyz")
        #expect(ready.status == 200 && ready.json == ["status": "ready"], "\(ready.text)")
        #expect(try await RawHTTPClient.request(port: port, "GET", "/healthz").status == 200)
        #expect(try await RawHTTPClient.request(port: port, "GET", "/v1/plugins").status == 401)

        // Nothing in the data directory is open to the group or others.
        var open: [String] = []
        let root = URL(fileURLWithPath: ws.dataDirectory)
        var paths = [root.path]
        if let walker = FileManager.default.enumerator(atPath: root.path) {
            for case let relative as String in walker { paths.append(root.appendingPathComponent(relative).path) }
        }
        for path in paths {
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFLNK else { continue }
            if info.st_mode & 0o077 != 0 { open.append("\(path) \(String(info.st_mode & 0o777, radix: 8))") }
        }
        #expect(paths.count > 5, "the host wrote its stores: \(paths)")
        #expect(open.isEmpty, "open to others: \(open)")
    }

    /// Issue 46: the CLI knows a running host. `plugins list` and `plugins why` on the data a host
    /// serves ask that host (with a token) or say it runs and how to ask it (exit 9) — never
    /// loading plugins of their own against its live data; a second `serve` on the same data is
    /// refused, naming the first; `plugins restart` and `list --running` find the host's URL although
    /// `--port 0` moved it from the deployment's 8420.
    @Test(.hangWatchdog) func theCLIAsksTheHostThatServesTheDataInsteadOfLoadingItsOwnPlugins() async throws {
        let ws = FixtureWorkspace("http-serve-running")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        func tessera(_ arguments: [String]) async throws -> ProcessResult {
            try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
        }
        let blind = try await tessera(["plugins", "list"])
        #expect(blind.status == 9, "\(blind.stdout)\(blind.stderr)")
        #expect(blind.stderr.contains("a host (pid ") && blind.stderr.contains("serves this data directory") && blind.stderr.contains("--token"), "\(blind.stderr)")
        let asked = try await tessera(["plugins", "list", "--token", admin])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stdout.contains("dev.tessera.example") && asked.stdout.contains("active"), "the host's own state: \(asked.stdout)")
        let why = try await tessera(["plugins", "why", "dev.tessera.example", "--token", admin])
        #expect(why.status == 0 && why.stdout.contains("— active"), "\(why.stdout)\(why.stderr)")
        #expect(try await tessera(["plugins", "why", "dev.tessera.example"]).status == 9)
        // No --url: the host's own, not the deployment's 8420 (the host answers; the example runs in-process).
        let restarted = try await tessera(["plugins", "restart", "dev.tessera.example", "--token", admin])
        #expect(restarted.stderr.contains("does not run in the process tier"), "\(restarted.stderr)")
        #expect(try await tessera(["plugins", "list", "--running", "--token", admin]).status == 0)

        let second = try await runDetached(Fixtures.tesseraExecutable, ["serve", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory, "--port", "0"])
        #expect(second.status == 9, "\(second.stdout)\(second.stderr)")
        #expect(second.stderr.contains("already serves the data directory"), "\(second.stderr)")

        _ = try await serve.terminate()
        // Stopped: the data is the CLI's again.
        let after = try await tessera(["plugins", "list"])
        #expect(after.status == 0 && after.stdout.contains("validated"), "\(after.stdout)\(after.stderr)")
    }

    /// Issue 46: the log says when, and says each request. With `--log-format json` every line of
    /// `serve` is a JSON object with its time, level, source and message; each request has an
    /// access line with its status and request id, which the response carries as `X-Request-Id`;
    /// `serve` logs at info without `-v` (a plugin becoming active is there).
    @Test(.hangWatchdog) func everyLineHasItsTimeAndEveryRequestItsLineInJSON() async throws {
        let ws = FixtureWorkspace("http-serve-log")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let serve = try await ServeProcess.reading(try ChildProcess(Fixtures.tesseraExecutable, ["serve", "--deployment", ws.deploymentFile,
                                                                 "--data", ws.dataDirectory, "--port", "0", "--log-format", "json"], stderr: .pipe))
        let process = serve.process
        defer { process.terminate() }
        let err = try #require(process.standardError), port = serve.port
        let admin = try #require(serve.adminToken)
        let listed = try await RawHTTPClient.request(port: port, "GET", "/v1/plugins?verbose=1", headers: [("Authorization", "Bearer \(admin)")])
        let id = try #require(listed.headers["x-request-id"], "\(listed.headers)")
        process.terminate()
        let log = try await onThread { String(decoding: err.readDataToEndOfFile(), as: UTF8.self) }
        let lines = log.split(separator: "\n").map(String.init)
        let objects = lines.compactMap { try? JSONValue(parsing: Array($0.utf8)) }
        #expect(objects.count == lines.count && !lines.isEmpty, "every line is JSON: \(log)")
        for object in objects {
            #expect(object["time"]?.stringValue?.hasPrefix("20") == true && object["level"] != nil && object["source"] != nil, "\(object)")
        }
        let access = objects.first { $0["source"] == "http" && $0["message"]?.stringValue?.hasPrefix("GET /v1/plugins 200 ") == true }
        #expect(access?["message"]?.stringValue?.hasSuffix("request=\(id)") == true, "\(log)")
        #expect(!log.contains("verbose=1"), "no query string in the access line")
        #expect(!log.contains(admin), "no token in the log")
        #expect(objects.contains { $0["source"] == "dev.tessera.example" && $0["level"] == "info" && $0["message"]?.stringValue?.hasPrefix("active") == true },
                "\(log)")
    }

    /// Issue 46: `/metrics` has what every service's dashboard expects — `process_*` and
    /// `tessera_build_info` — and a scraper is never rate-limited, even where calls are limited
    /// to one per 10,000 seconds.
    @Test(.hangWatchdog) func metricsHaveTheProcessAndTheBuildAndAreNeverRateLimited() async throws {
        let ws = FixtureWorkspace("http-serve-metrics")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        // One call per 10,000 s: a second call is refused however slow the machine is.
        let serve = try await ServeProcess.start(ws, extraArguments: ["--rate-limit", "0.0001", "--rate-burst", "1"])
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        var statuses: [Int] = []
        for _ in 0..<5 {
            statuses.append(try await RawHTTPClient.request(port: serve.port, "GET", "/metrics", headers: [("Authorization", "Bearer \(admin)")]).status)
        }
        #expect(statuses == [200, 200, 200, 200, 200], "\(statuses)")
        let page = try await RawHTTPClient.request(port: serve.port, "GET", "/metrics", headers: [("Authorization", "Bearer \(admin)")]).text
        for family in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds",
                       "process_max_fds", "process_start_time_seconds"] {
            #expect(page.contains("# TYPE \(family) "), "\(family) missing")
        }
        let rss = page.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") }.flatMap { Double($0.split(separator: " ")[1]) }
        #expect((rss ?? 0) > 1_000_000, "a resident size in bytes: \(String(describing: rss))")
        #expect(page.contains(#"tessera_build_info{version="0.1.0",swift="6.3.1",sdk_abi="1.10"} 1.0"#), "\(page.suffix(600))")
        // Calls are still limited: the second call is refused.
        var calls: [Int] = []
        for _ in 0..<2 {
            calls.append(try await RawHTTPClient.request(port: serve.port, "GET", "/v1/plugins", headers: [("Authorization", "Bearer \(admin)")]).status)
        }
        #expect(calls.contains(429), "\(calls)")
    }
}
