import Foundation
import Synchronization
import TesseraSTAGEmulator
import TesseraTestFixtures
import Testing

/// The emulator answers while every one of Swift concurrency's threads in the process is held (a
/// whole test run computes on them for seconds at a time): its server runs on a thread of its own
/// (`EmulatorThread`). On the shared pool, the request below could not be answered until the
/// pool was let go, which happens only after the answer: the holders give up 30 s after the last of
/// them took its thread (a guard against wedging the whole test process, not a measurement) and
/// the test fails.
///
/// The holders share the pool with every other test of the run, so none holds a thread for long
/// while it waits for the others: a round whose holders have not all got a thread within 2 s is
/// let go, and another is tried a second later. Holding one of two threads until the second came
/// free (as this test once did) left the whole run on one thread for as long as another test
/// computed on the other; a hub test beside it waited 30 s for an answer and failed.
@Suite(.hangWatchdog) struct STAGEmulatorThreadTests {
    @Test func theEmulatorAnswersWhileEveryPoolThreadIsHeld() async throws {
        let emulator = try await STAGEmulator.start()
        let width = ProcessInfo.processInfo.activeProcessorCount
        let port = emulator.port
        var answer: String?
        var rounds = 0
        while answer == nil {
            rounds += 1
            let round = HoldingRound()
            // One task per pool thread, each holding its thread until the round ends.
            let holders = (0..<width).map { _ in Task.detached { round.hold() } }
            answer = try await onOwnThread { () -> String? in
                defer { round.end() }
                for _ in 0..<width {
                    guard round.waitForHolder(seconds: 2) else { return nil }
                }
                round.markAllHeld()
                return try Self.get(port: port, path: "/_emulator/time")
            }
            var releasedByTheAnswer = true
            for holder in holders { releasedByTheAnswer = await holder.value && releasedByTheAnswer }
            if answer != nil { #expect(releasedByTheAnswer, "the emulator answered only once the pool was let go") }
            if answer == nil { try await Task.sleep(for: .seconds(1)) }  // let the rest of the run have the threads
        }
        #expect(answer?.hasPrefix("HTTP/1.1 ") == true, "\(answer ?? "")")
        print("the pool was held whole in round \(rounds)")
        await emulator.stop()
    }

    /// One attempt at holding every pool thread at once: holders report when they have a thread
    /// and hold it until the round ends; after every holder had one, a holder gives up on its own
    /// 30 s later (false: the answer did not let it go).
    final class HoldingRound: Sendable {
        private let held = DispatchSemaphore(value: 0)
        private let ended = Atomic<Bool>(false)
        private let allHeldAt = Atomic<UInt64>(0)

        func hold() -> Bool {
            held.signal()
            while !ended.load(ordering: .acquiring) {
                usleep(1_000)
                let at = allHeldAt.load(ordering: .acquiring)
                if at != 0, DispatchTime.now().uptimeNanoseconds - at > 30_000_000_000 { return false }
            }
            return true
        }

        /// Whether one more holder took its thread within `seconds`.
        func waitForHolder(seconds: Double) -> Bool { held.wait(timeout: .now() + seconds) == .success }
        func markAllHeld() { allHeldAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing) }
        func end() { ended.store(true, ordering: .releasing) }
    }

    /// A plain HTTP/1.1 GET over a socket, on the calling thread.
    static func get(port: Int, path: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        return String(decoding: response, as: UTF8.self)
    }
}
