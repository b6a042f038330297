#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TesseraFiles
import TesseraLoader
import TesseraSDK
import TesseraSQLite
import TesseraTestFixtures

/// Kills a real child process putting files with SIGKILL, again and again, and checks the store:
/// every acknowledged file is there, whole; every file the index shows is whole (no half file is
/// visible); and what the kills left half-written is cleared when the plugin next starts.
@Suite struct FileCrashTests {
    static let kills = 8

    @Test(.hangWatchdog) func killNineMidWriteLeavesAcknowledgedFilesWholeAndNoHalfFileVisible() async throws {
        let tool = try #require(Fixtures.storageTortureExecutable, "tessera-storage-torture not found next to the test binary")
        let dir = Fixtures.temporaryDirectory("files-torture")
        let store = FileStore(dataDirectory: dir)
        var random = SplitMix64(seed: 0xF11E)
        var acknowledged: [Int: String] = [:]
        var leftHalfWritten = 0
        for run in 0..<Self.kills {
            let child = try PipedProcess(tool, ["files", dir, String(run * 1000)], stderrPath: dir + "/stderr-\(run).txt")
            let killAfter = 1 + Int(random.next() % 6)
            // Half the runs are killed just after an acknowledgement, half once the next file's
            // first chunk is written: then the kill lands somewhere in its writes, fsync or rename.
            let midWrite = run % 2 == 0
            // The reads and the wait block while the tool writes: on a thread of their own, not on
            // one of Swift concurrency's two, which the other tests' servers need.
            let (acks, status) = try await onOwnThread {
                var reader = LineReader(fd: child.stdout)
                var acks: [Int: String] = [:]
                while let line = reader.nextLine() {
                    let parts = line.split(separator: " ")
                    if parts.count == 3, parts[0] == "ack", let number = Int(parts[1]) {
                        acks[number] = String(parts[2])
                        if acks.count >= killAfter && !midWrite { break }
                    } else if parts.first == "writing", acks.count >= killAfter {
                        break
                    }
                }
                child.kill()
                let status = child.wait()
                child.closeOutput()
                return (acks, status)
            }
            acknowledged.merge(acks) { $1 }
            let stderr = (try? String(contentsOfFile: dir + "/stderr-\(run).txt", encoding: .utf8)) ?? ""
            #expect(status.signal == SIGKILL, "\(status): \(stderr)")
            if !((try? FileManager.default.contentsOfDirectory(atPath: store.directory(of: "torture") + "/tmp")) ?? []).isEmpty {
                leftHalfWritten += 1
            }
            try expectEveryVisibleFileWhole(store)
        }
        #expect(acknowledged.count >= Self.kills, "every run acknowledged files before its kill")
        #expect(leftHalfWritten >= 1, "some kill landed mid-write")

        let files = PluginFileChannel(pluginID: "torture", store: store,
                                      policy: FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: nil, maxFileBytes: nil), now: { Date() })
        for (number, address) in acknowledged.sorted(by: { $0.key < $1.key }) {
            let expected = Self.tortureFile(number)
            #expect(address == SHA256.hex(of: expected), "file \(number)'s address is the hash of its bytes")
            #expect(try await files.read(address) == expected, "acknowledged file \(number) survived whole")
        }
        // The next start clears what the kills left: no temporary, no object without its row.
        try store.recover(plugin: "torture")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: store.directory(of: "torture") + "/tmp")) ?? []).isEmpty)
        try expectEveryVisibleFileWhole(store)
        for object in objects(store) {
            #expect(try store.descriptor(plugin: "torture", address: (object as NSString).lastPathComponent) != nil, "\(object) has its row")
        }
    }

    /// Every file the index shows (every row of `files.sqlite`) reads back whole: its bytes hash to
    /// its address, at its size.
    func expectEveryVisibleFileWhole(_ store: FileStore) throws {
        let index = try SQLiteConnection(path: store.dataDirectory + "/files.sqlite", mode: .readOnly)
        let rows = try index.fetchAll("SELECT address, size FROM files WHERE plugin = 'torture'")
        for row in rows {
            let address = row[0].text ?? "", size = row[1].integer ?? -1
            let bytes = try #require(FileManager.default.contents(atPath: "\(store.directory(of: "torture"))/objects/\(address.prefix(2))/\(address)"),
                                     "visible file \(address) has its bytes")
            #expect(Int64(bytes.count) == size && SHA256.hex(of: [UInt8](bytes)) == address, "\(address) is whole")
        }
    }

    func objects(_ store: FileStore) -> [String] {
        let root = store.directory(of: "torture") + "/objects"
        return ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\(folder)")) ?? []).map { "\(root)/\(folder)/\($0)" }
        }
    }

    /// The tool's file `number` (Sources/TesseraStorageTorture/FilesTorture.swift).
    static func tortureFile(_ number: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (256 + (number % 8) * 128) * 1024)
        bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
        for i in 3..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 131 &+ number &* 7) }
        return bytes
    }
}
