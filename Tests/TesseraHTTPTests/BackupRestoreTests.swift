import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Issue 46: `tessera backup` of a host that serves, under load, and `tessera restore`. Notes are
/// written over HTTP one after another while the backup runs; every note acknowledged before the
/// backup started is in the restored data, which a new host serves with the old admin token. A
/// damaged archive, a data directory that is not empty, and `--without-secrets` are checked too.
@Suite struct BackupRestoreTests {
    @Test(.hangWatchdog) func aBackupTakenUnderLoadRestoresEveryWriteAcknowledgedBeforeIt() async throws {
        let ws = FixtureWorkspace("http-backup")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        func add(_ text: String, port: Int) async throws -> Bool {
            let answer = try await RawHTTPClient.request(port: port, "POST", "/v1/plugins/dev.tessera.example/ops/add-note",
                                                         headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                                                         body: Array(#"{"text": "\#(text)"}"#.utf8))
            return answer.status == 200
        }
        func tessera(_ arguments: [String], data: String) async throws -> ProcessResult {
            try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", data])
        }
        // Writes before, and a writer that goes on while the backup runs.
        var before: [String] = []
        for i in 0..<50 { if try await add("before \(i)", port: serve.port) { before.append("before \(i)") } }
        let writer = Task {
            var during = 0
            while !Task.isCancelled, try await add("during \(during)", port: serve.port) { during += 1 }
            return during
        }
        let archive = ws.root + "/backup.tar"
        let backup = try await tessera(["backup", "--to", archive], data: ws.dataDirectory)
        writer.cancel()
        let during = try await writer.value
        print("backup under load: \(before.count) notes before, \(during) written while it ran: \(backup.stdout)")
        #expect(backup.status == 0, "\(backup.stderr)")
        var info = stat()
        #expect(stat(archive, &info) == 0 && info.st_mode & 0o077 == 0, "the archive is 0600")
        _ = try await serve.terminate()

        let restored = ws.root + "/restored"
        let restore = try await tessera(["restore", archive], data: restored)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("each checked"))
        // The original is gone: what the new host serves can only come from the archive.
        try FileManager.default.moveItem(atPath: ws.dataDirectory, toPath: ws.root + "/original")
        try FileManager.default.moveItem(atPath: restored, toPath: ws.dataDirectory)
        let again = try await ServeProcess.start(ws)
        defer { again.process.terminate() }
        #expect(again.adminToken == nil, "the restored data has its admin token")
        let listed = try await RawHTTPClient.request(port: again.port, "POST", "/v1/plugins/dev.tessera.example/ops/list-notes",
                                                     headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                                                     body: Array("{}".utf8))
        let texts = Set(listed.json?["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? [])
        #expect(listed.status == 200, "\(listed.text)")
        #expect(Set(before).isSubset(of: texts), "lost: \(Set(before).subtracting(texts).sorted())")
        _ = try await again.terminate()

        // Restoring again into the same, now full, directory is refused; a damaged archive leaves nothing.
        let full = try await tessera(["restore", archive], data: ws.dataDirectory)
        #expect(full.status == 2 && full.stderr.contains("is not empty"), "\(full.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        bytes[bytes.count / 2] ^= 0xff
        let damagedArchive = ws.root + "/damaged.tar"
        try bytes.write(to: URL(fileURLWithPath: damagedArchive))
        let damaged = try await tessera(["restore", damagedArchive], data: ws.root + "/from-damaged")
        #expect(damaged.status == 2 && damaged.stderr.contains("damaged"), "\(damaged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ws.root + "/from-damaged"), "nothing made from a damaged archive")
        // A file where the data directory should go is refused and kept (it was once taken for an
        // empty folder and deleted).
        let file = ws.root + "/a-file"
        Fixtures.write("keep me", to: file)
        let onFile = try await tessera(["restore", archive], data: file)
        #expect(onFile.status == 2 && onFile.stderr.contains("is a file"), "\(onFile.stderr)")
        #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "keep me")

        let bare = ws.root + "/bare.tar"
        let withoutSecrets = try await tessera(["backup", "--to", bare, "--without-secrets"], data: ws.dataDirectory)
        #expect(withoutSecrets.status == 0, "\(withoutSecrets.stderr)")
        let listing = try await runDetached("/usr/bin/tar", ["tf", bare])
        #expect(listing.status == 0 && listing.stdout.contains("data/host.sqlite") && !listing.stdout.contains("http-tokens.json"),
                "a tar any tool reads, without the tokens: \(listing.stdout)")
    }
}
