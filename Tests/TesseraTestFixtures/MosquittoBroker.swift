import Foundation
import Glibc

/// A real MQTT broker on loopback: Debian's `mosquitto`, on a free port, with one user and
/// password (`mosquitto_passwd`) and no anonymous access, as an OwnTracks set-up runs it. It
/// keeps client sessions in memory for as long as it runs, so a subscriber that comes back finds
/// the QoS 1 messages published while it was away. ``publish(_:to:)`` publishes as the OwnTracks
/// app does (`mosquitto_pub`, QoS 1, retained).
public final class MosquittoBroker: Sendable {
    public let port: Int
    public let user: String
    public let password: String
    private let process: ChildProcess

    /// The certificate authority of a TLS broker (`mqtts://`), for the client's `caFile`; nil
    /// for a plain one.
    public let caFile: String?

    /// A broker; with `tls`, its listener speaks only TLS, with a certificate for 127.0.0.1 and
    /// localhost signed by a certificate authority made for it (`openssl`), whose file is ``caFile``.
    public init(user: String = "ada", password: String = "correct horse battery", tls: Bool = false) async throws {
        let root = Fixtures.temporaryDirectory("mosquitto")
        caFile = tls ? try await Self.makeCertificates(in: root) : nil
        let passwords = root + "/passwd"
        let made = try await runDetached(ExternalTools.path(of: "mosquitto_passwd") ?? "mosquitto_passwd", ["-b", "-c", passwords, user, password])
        guard made.status == 0 else { throw SpawnFailure("mosquitto_passwd: \(made.stderr)") }
        self.port = try freeLoopbackPort()
        self.user = user
        self.password = password
        // `user root`: run as whoever starts it (a root test run would otherwise drop to the
        // `mosquitto` user, which cannot read the test's folder).
        let certificates = tls ? "cafile \(root)/ca.crt\ncertfile \(root)/server.crt\nkeyfile \(root)/server.key\n" : ""
        Fixtures.write("""
            listener \(port) 127.0.0.1
            \(certificates)allow_anonymous false
            password_file \(passwords)
            log_dest none
            user \(NSUserName())
            """, to: root + "/mosquitto.conf")
        process = try ChildProcess(ExternalTools.path(of: "/usr/sbin/mosquitto") ?? "/usr/sbin/mosquitto", ["-c", root + "/mosquitto.conf"],
                                   stdout: .null, stderr: .inherit)
        // Its log is block-buffered into a pipe, so "running" would come late: ready is when its
        // port takes a connection (on a thread of its own, at most 10 s).
        let port = self.port
        let listening = try await onOwnThread { () -> Bool in
            for _ in 0..<200 {
                if Self.accepts(port) { return true }
                usleep(50_000)
            }
            return false
        }
        guard listening else {
            await process.terminateAndWait()
            throw SpawnFailure("mosquitto did not listen on port \(port) within 10 s")
        }
    }

    /// Whether something takes a TCP connection on loopback `port`.
    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A certificate authority and a server certificate it signed (SAN 127.0.0.1 and localhost),
    /// made with `openssl` in `folder`; the authority's file.
    private static func makeCertificates(in folder: String) async throws -> String {
        let openssl = ExternalTools.path(of: "openssl") ?? "openssl"
        Fixtures.write("subjectAltName = IP:127.0.0.1, DNS:localhost\n", to: folder + "/san.ext")
        for arguments in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Tessera test CA",
             "-keyout", folder + "/ca.key", "-out", folder + "/ca.crt"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", folder + "/server.key", "-out", folder + "/server.csr"],
            ["x509", "-req", "-in", folder + "/server.csr", "-CA", folder + "/ca.crt", "-CAkey", folder + "/ca.key", "-CAcreateserial",
             "-days", "2", "-extfile", folder + "/san.ext", "-out", folder + "/server.crt"],
        ] {
            let made = try await runDetached(openssl, arguments)
            guard made.status == 0 else { throw SpawnFailure("openssl \(arguments[0]): \(made.stderr)") }
        }
        return folder + "/ca.crt"
    }

    /// Publishes `message` to `topic` at QoS 1, retained, with the broker's user and password.
    public func publish(_ message: String, to topic: String) async throws {
        let tls = caFile.map { ["--cafile", $0] } ?? []
        let sent = try await runDetached(ExternalTools.path(of: "mosquitto_pub") ?? "mosquitto_pub",
                                         ["-h", "127.0.0.1", "-p", String(port), "-u", user, "-P", password, "-q", "1", "-r", "-t", topic, "-m", message] + tls)
        guard sent.status == 0 else { throw SpawnFailure("mosquitto_pub: \(sent.stderr)") }
    }

    public func stop() async { await process.terminateAndWait() }
}
