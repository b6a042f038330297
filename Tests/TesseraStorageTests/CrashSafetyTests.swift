#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TesseraTestFixtures
import TesseraSDK
import TesseraStorage

/// Kills `tessera-storage-torture` with SIGKILL again and again while it writes batches to one
/// database, then checks that every acknowledged batch survived whole and that no batch is partial.
///
/// The tool is found next to the test binary (`swift build` puts both in the same directory). The
/// test never sleeps to wait for something: it reads acknowledgements from the tool's stdout. Where
/// it kills mid-batch it waits a random fraction of the time a batch takes, measured from the acks.
@Suite struct CrashSafetyTests {
    static let kills = 20
    static let rowsPerBatch = 50

    @Test func acknowledgedBatchesSurviveKillNineAndNoBatchIsPartial() async throws {
        let tool = try #require(Self.tortureExecutable(),
                                "tessera-storage-torture not found next to the test binary; run `swift build --product tessera-storage-torture` first")
        let dir = TempDirectory("torture")
        let database = dir.file("torture/items.sqlite")
        var random = SplitMix64(seed: 0x7e55e7a)
        var acknowledged = Set<Int64>()
        var nextStart: Int64 = 1
        var batchSeconds = 0.002  // refined from the ack intervals seen
        var log: [String] = []

        for run in 0..<Self.kills {
            // Kill after this many acks (varied deterministically by the seed); in every other run,
            // then wait a random fraction of a batch so the kill lands inside a write.
            let killAfter = Int(random.next() % 12)
            let midBatch = run % 2 == 1
            let fraction = midBatch ? Double(random.next() % 1000) / 1000 : nil
            let start = nextStart
            let child = try PipedProcess(tool, [database, String(start)], stderrPath: dir.file("stderr-\(run).txt"))
            // The reads, the pause and the wait block for as long as the tool writes: on a thread of
            // their own, not on one of Swift concurrency's two, which the other tests' servers need.
            let (acks, status, measured) = try await onOwnThread { [batchSeconds] in
                try Self.ackThenKill(child, after: killAfter, pausing: fraction, batchSeconds: batchSeconds)
            }
            batchSeconds = measured
            let stderr = (try? String(contentsOfFile: dir.file("stderr-\(run).txt"), encoding: .utf8)) ?? ""
            #expect(status.signal == SIGKILL, "run \(run): the tool was not killed (\(status)); stderr: \(stderr)")
            #expect(acks == Array(start..<(start + Int64(acks.count))), "run \(run): acks out of order: \(acks)")
            acknowledged.formUnion(acks)
            // The tool may have committed the batch after its last ack without printing it: skip that
            // number, so no batch is ever written twice.
            nextStart = (acks.last ?? (start - 1)) + 2
            log.append("run \(run): start \(start), kill after \(killAfter) acks\(midBatch ? " + mid-batch" : ""), saw \(acks.count)")
        }

        let storage = try SQLitePluginStorage(pluginID: "torture", path: database, now: { Date() })
        let perBatch = try await storage.query(
            "SELECT batch, COUNT(*) AS rows, COUNT(DISTINCT n) AS ns, MIN(n) AS lo, MAX(n) AS hi FROM items GROUP BY batch ORDER BY batch")
        var present = Set<Int64>()
        for row in perBatch {
            let batch = row["batch"].integer ?? -1
            present.insert(batch)
            #expect(row["rows"] == .integer(Int64(Self.rowsPerBatch)), "batch \(batch) is partial: \(row)")
            #expect(row["ns"] == .integer(Int64(Self.rowsPerBatch)) && row["lo"] == .integer(0) && row["hi"] == .integer(49),
                    "batch \(batch) has the wrong rows: \(row)")
        }
        let misnamed = try await storage.query(
            "SELECT COUNT(*) AS n FROM items WHERE id != 'b' || batch || '-' || n").first?["n"]
        #expect(misnamed == .integer(0))
        let lost = acknowledged.subtracting(present)
        #expect(lost.isEmpty, "acknowledged batches lost: \(lost.sorted())")
        #expect(!acknowledged.isEmpty)

        // The change log: exactly 50 entries per present batch, all committed with their batch
        // (one log row per batch: `[table, id, operation, cells]` per change).
        let logged = try await storage.query("""
            SELECT CAST(substr(e.value ->> 1, 2, instr(e.value ->> 1, '-') - 2) AS INTEGER) AS b, COUNT(*) AS n,
                   COUNT(DISTINCT c.seq) AS txs
            FROM _tessera_change_batches AS c, json_each(c.changes) AS e WHERE e.value ->> 0 = 'items'
            GROUP BY b ORDER BY b
            """)
        #expect(Set(logged.compactMap { $0["b"].integer }) == present)
        for row in logged {
            #expect(row["n"] == .integer(Int64(Self.rowsPerBatch)), "change log of batch \(row["b"]): \(row)")
            #expect(row["txs"] == .integer(1), "batch \(row["b"]) was logged in more than one transaction")
        }
        let integrity = try await storage.query("PRAGMA integrity_check").first?.values
        #expect(integrity == [.text("ok")])

        let summary = "\(Self.kills) kills, \(acknowledged.count) batches acknowledged, \(present.count) present"
            + " (\(present.subtracting(acknowledged).count) committed but unacknowledged)"
        print("crash test: " + summary + "\n  " + log.joined(separator: "\n  "))
    }

    /// Reads `killAfter` acks from the tool, waits `fraction` of a batch if given (a batch's time
    /// measured from the acks' intervals), kills it, and reads the acks left in the pipe. Blocking.
    static func ackThenKill(_ child: PipedProcess, after killAfter: Int, pausing fraction: Double?, batchSeconds: Double) throws
        -> (acks: [Int64], status: PipedProcess.Status, batchSeconds: Double) {
        var acks: [Int64] = []
        let clock = ContinuousClock()
        var lastAckAt = clock.now
        var intervals: [Duration] = []
        var reader = LineReader(fd: child.stdout)
        while acks.count < killAfter, let line = reader.nextLine() {
            acks.append(try parseAck(line))
            let now = clock.now
            if acks.count > 1 { intervals.append(now - lastAckAt) }
            lastAckAt = now
        }
        let batchSeconds = intervals.isEmpty ? batchSeconds : intervals.map(\.timeInterval).reduce(0, +) / Double(intervals.count)
        if let fraction {
            usleep(useconds_t(max(0, min(0.5, batchSeconds * fraction)) * 1_000_000))
        }
        child.kill()
        let status = child.wait()
        // Acks already in the pipe were printed after their write returned: they count too. The
        // tool is dead, so what it wrote is all in the pipe: read without blocking.
        reader.stopBlocking()
        while let line = reader.nextLine() { acks.append(try parseAck(line)) }
        child.closeOutput()
        return (acks, status, batchSeconds)
    }

    static func parseAck(_ line: String) throws -> Int64 {
        guard line.hasPrefix("ack "), let n = Int64(line.dropFirst(4)) else {
            throw PluginError(.internal, "unexpected line from the tool: \(line)")
        }
        return n
    }

    /// `tessera-storage-torture` in the directory of the running test binary.
    static func tortureExecutable() -> String? { Fixtures.storageTortureExecutable }
}


