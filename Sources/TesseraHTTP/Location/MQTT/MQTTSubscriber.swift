import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A subscribe-only MQTT 3.1.1 client on swift-nio: connects to one broker (TLS optional, a user
/// name and password optional), subscribes to one topic filter at QoS 1, and hands each message
/// to the caller; it acknowledges a QoS 1 message only after the caller has taken it, so a message
/// the host did not take is sent again. It keeps its session (`cleanSession: false`, a stable client
/// id), so the broker keeps what is published while the host is down and delivers it on reconnect.
/// A lost connection is made again, after 1 s, then doubling up to a minute. A session the broker
/// kept is not subscribed again (that would replay the retained message ahead of the queued ones):
/// a changed topic filter takes a new client id.
///
/// No MQTT package is among the machine's Swift package copies, and a subscriber needs only six
/// packet kinds (``MQTTPacket``): small enough to own.
final class MQTTSubscriber: Sendable {
    struct Settings: Sendable {
        var host: String
        var port: Int
        var tls: Bool
        /// PEM file of the certificate authority to trust (the system's roots otherwise).
        var caFile: String?
        var username: String?
        var password: String?
        var clientID: String
        var topicFilter: String
        var keepAlive: UInt16 = 60
    }

    let settings: Settings
    let log: @Sendable (String) -> Void

    init(_ settings: Settings, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.log = log
    }

    /// Runs until the task is cancelled: connects, subscribes, hands each message over, reconnects.
    func run(_ handle: @escaping @Sendable (_ topic: String, _ payload: [UInt8]) async -> Void) async {
        var wait: Duration = .seconds(1)
        while !Task.isCancelled {
            let subscribed = Subscribed()
            defer { if subscribed.value.withLock({ $0 }) { wait = .seconds(1) } }  // a session that worked starts the backoff over
            do {
                try await session(handle, subscribed: subscribed)
            } catch is CancellationError {
                return
            } catch {
                log("MQTT \(settings.host):\(settings.port): \(error); connecting again in \(wait)")
            }
            try? await Task.sleep(for: wait)
            wait = min(wait * 2, .seconds(60))
        }
    }

    /// Whether a session got as far as its subscription.
    final class Subscribed: Sendable {
        let value = Mutex(false)
    }

    struct Closed: Error, CustomStringConvertible {
        let description: String
    }

    /// One connection, from CONNECT to its end (an error, the broker closing it, or cancellation).
    private func session(_ handle: @escaping @Sendable (String, [UInt8]) async -> Void, subscribed: Subscribed) async throws {
        let settings = self.settings
        let tls = try settings.tls ? NIOSSLContext(configuration: Self.tlsConfiguration(settings)) : nil
        let firstError = FirstError()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: Self.serverName(settings.host)))
                        try channel.pipeline.syncOperations.addHandler(firstError)
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        // A refused handshake closes the channel, and the CONNECT written meanwhile may fail first
        // ("I/O on closed channel"): the person is told the handshake's reason (a certificate not
        // trusted) rather than that.
        do {
            try await exchange(on: channel, handle, subscribed: subscribed)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw firstError.value.withLock { $0 } ?? error
        }
    }

    /// The packets of one connection: CONNECT, then what the broker sends, until it ends.
    private func exchange(on channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, _ handle: @escaping @Sendable (String, [UInt8]) async -> Void,
                          subscribed: Subscribed) async throws {
        let settings = self.settings
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(MQTTPacket.connect(clientID: settings.clientID, username: settings.username, password: settings.password,
                                                        keepAlive: settings.keepAlive, cleanSession: false))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {  // keep-alive: a PINGREQ at half the interval
                    while true {
                        try await Task.sleep(for: .seconds(Int(settings.keepAlive) / 2))
                        try await outbound.write(MQTTPacket.pingreq)
                    }
                }
                group.addTask {
                    var buffer = ByteBuffer()
                    for try await chunk in inbound {
                        buffer.writeImmutableBuffer(chunk)
                        while let packet = try MQTTPacket.read(from: &buffer) {
                            switch packet {
                            case .connack(let sessionPresent, let code):
                                guard code == 0 else { throw Closed(description: MQTTPacket.refusal(code)) }
                                // A kept session keeps its subscription, and the broker now sends what
                                // it queued, in order. Subscribing again would also send the topic's
                                // retained message — the newest — ahead of the older queued ones.
                                if sessionPresent {
                                    subscribed.value.withLock { $0 = true }
                                } else {
                                    try await outbound.write(MQTTPacket.subscribe(packetID: 1, filter: settings.topicFilter, qos: 1))
                                }
                            case .suback(_, let granted):
                                guard granted.allSatisfy({ $0 != 0x80 }) else { throw Closed(description: "the broker refused the subscription to \(settings.topicFilter)") }
                                subscribed.value.withLock { $0 = true }
                            case .publish(let topic, let payload, let qos, let id, _):
                                await handle(topic, payload)
                                if qos > 0, let id { try await outbound.write(MQTTPacket.puback(packetID: id)) }
                            case .pingresp, .other:
                                break
                            }
                        }
                        buffer.discardReadBytes()
                    }
                    throw Closed(description: "the broker closed the connection")
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// Keeps the first error the channel's pipeline reports (TLS's, when its handshake fails) and
    /// passes every error on.
    final class FirstError: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let value = Mutex<(any Error)?>(nil)

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            value.withLock { if $0 == nil { $0 = error } }
            context.fireErrorCaught(error)
        }
    }

    /// The name sent in TLS's SNI and checked against the certificate: the host name; none for an
    /// IP address (SNI carries no addresses, and NIOSSL refuses one), whose certificate is then
    /// checked against the address connected to (an IP subject alternative name).
    static func serverName(_ host: String) -> String? {
        (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }

    private static func tlsConfiguration(_ settings: Settings) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile { configuration.trustRoots = .file(caFile) }
        return configuration
    }
}
