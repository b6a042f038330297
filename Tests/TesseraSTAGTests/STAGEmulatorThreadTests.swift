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
/// the test fails. The 30 s count from then, not from each holder's start: under a whole test run
/// the last holder can wait long for a thread while the first already holds one.
@Suite(.hangWatchdog) struct STAGEmulatorThreadTests {
    @Test func theEmulatorAnswersWhileEveryPoolThreadIsHeld() async throws {
        let emulator = try await STAGEmulator.start()
        let width = ProcessInfo.processInfo.activeProcessorCount
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let allHeld = AllHeldMoment()
        // One task per pool thread, each holding its thread until the answer has come.
        let holders = (0..<width).map { _ in
            Task.detached { () -> Bool in
                held.signal()
                while release.wait(timeout: .now() + 1) == .timedOut {
                    if allHeld.secondsSince() > 30 { return false }
                }
                return true
            }
        }
        let port = emulator.port
        let answer = try await onOwnThread { () -> String in
            for _ in 0..<width { held.wait() }
            allHeld.mark()
            defer { for _ in 0..<width { release.signal() } }
            return try Self.get(port: port, path: "/_emulator/time")
        }
        var releasedByTheAnswer = true
        for holder in holders { releasedByTheAnswer = await holder.value && releasedByTheAnswer }
        #expect(releasedByTheAnswer, "the emulator answered only once the pool was let go")
        #expect(answer.hasPrefix("HTTP/1.1 "), "\(answer)")
        await emulator.stop()
    }

    /// When every holder had its thread (0 before).
    final class AllHeldMoment: Sendable {
        private let nanoseconds = Atomic<UInt64>(0)
        func mark() { nanoseconds.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing) }
        /// Seconds since ``mark()``; 0 before it.
        func secondsSince() -> Double {
            let at = nanoseconds.load(ordering: .acquiring)
            return at == 0 ? 0 : Double(DispatchTime.now().uptimeNanoseconds - at) / 1e9
        }
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
