import Foundation
import Glibc
import Testing
import TesseraLoader
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Files of the kinds an operator (or a hostile author) can name as a library that are not
/// libraries: each must be refused at once, never opened in a way that waits.
enum NonRegularFiles {
    /// A named pipe nobody writes to: `open` for reading would wait for a writer for ever.
    static func fifo(_ path: String) throws -> String {
        guard mkfifo(path, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return path
    }

    /// A Unix socket bound at `path` (kept open by the test process).
    static func socket(_ path: String) throws -> String {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return path
    }

    /// One of each kind, with the words its refusal says.
    static func all(in folder: String) throws -> [(path: String, says: String)] {
        try FileManager.default.createDirectory(atPath: folder + "/folder.so", withIntermediateDirectories: true)
        return [(try fifo(folder + "/fifo.so"), "named pipe (FIFO), not a file"), (folder + "/folder.so", "a directory, not a file"),
                ("/dev/zero", "a device, not a file"), (try socket(folder + "/socket.so"), "a socket, not a file")]
    }
}

/// Issue 43: gate 1 opens nothing it can block on. Each kind is refused with a sentence by gate 1
/// (`plugins verify`'s path), at start (GateTests) and by a swap, and the swap lock is free
/// afterwards: the next swap goes through.
@Suite struct NonRegularLibraryTests {
    @Test(.hangWatchdog) func gateOneRefusesEachKindAtOnce() async throws {
        let ws = FixtureWorkspace("non-regular-verify")
        for (path, says) in try NonRegularFiles.all(in: ws.root) {
            let refusal = try await onOwnThread { () -> String? in
                do { _ = try FileGate.verify(path: path, manifest: nil, host: .current); return nil } catch { return "\(error)" }
            }
            #expect(refusal?.contains(says) == true, "\(path): \(refusal ?? "accepted")")
        }
    }

    @Test(.hangWatchdog) func aSwapToEachKindIsRefusedAndTheNextSwapGoesThrough() async throws {
        let suite = HotSwapTests()
        let (host, ws) = try await suite.swappableHost("swap-non-regular")
        for (path, says) in try NonRegularFiles.all(in: ws.root) {
            let error = await suite.swapError(host, .library(path))
            #expect(error?.message.contains(says) == true, "\(path): \(error?.message ?? "swapped")")
        }
        let report = try await host.swap("test.swappable", to: .inProcess(PluginFactory { HotSwapTests.Swappable("B") }))
        #expect(report.generation == 2, "the swap lock was released on every refusal")
        await host.stop()
    }
}
