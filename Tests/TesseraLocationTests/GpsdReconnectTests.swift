#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
import TesseraLocation
import TesseraSDK

/// A gpsd stand-in that drops every connection after one report: the client must come back for
/// the next one. Real time again, so only generous waits.
@Suite struct GpsdReconnectTests {
    @Test func theClientReconnectsAfterTheServerDropsTheConnection() async throws {
        let reports = (0..<3).map { i in
            #"{"class":"TPV","device":"/dev/fake","mode":2,"time":"2024-05-01T12:00:0\#(i)Z","lat":49.\#(i),"lon":16.6}"#
        }
        let server = try DroppingServer(lines: reports)
        let client = GpsdClient(port: server.port, minimumBackoff: 0.05, maximumBackoff: 0.2)
        let fixes = await GpsdClientTests.collect(from: client, untilSecond: 2, timeout: 60)
        #expect(fixes.map(\.latitude) == [49.0, 49.1, 49.2])
        #expect(server.watchRequests.allSatisfy { $0.hasPrefix("?WATCH={\"enable\":true,\"json\":true};") })
    }
}

/// Accepts one connection per line: reads the client's request, sends the line, hangs up.
final class DroppingServer: Sendable {
    let port: UInt16
    private let requests = Mutex<[String]>([])

    /// What each connection asked for first.
    var watchRequests: [String] { requests.withLock { $0 } }

    init(lines: [String]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { close(fd); throw POSIXError(.EADDRINUSE) }
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in
            for line in lines {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { break }
                var buffer = [UInt8](repeating: 0, count: 256)
                let n = recv(client, &buffer, buffer.count, 0)
                self.requests.withLock { $0.append(String(decoding: buffer[0..<max(0, n)], as: UTF8.self)) }
                let reply = Array((line + "\n").utf8)
                _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
            close(fd)
        }.start()
    }
}
