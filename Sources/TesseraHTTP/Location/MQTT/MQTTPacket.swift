import NIOCore

/// The MQTT 3.1.1 packets a subscribe-only client needs (OASIS, "MQTT Version 3.1.1", §2 and §3):
/// what it sends — CONNECT, SUBSCRIBE, PUBACK, PINGREQ, DISCONNECT — and what it reads — CONNACK,
/// SUBACK, PUBLISH, PINGRESP. Pure functions over bytes, so that every case is tested without a
/// broker (`MQTTPacketTests`).
enum MQTTPacket: Equatable {
    case connack(sessionPresent: Bool, returnCode: UInt8)
    case suback(packetID: UInt16, grantedQoS: [UInt8])
    case publish(topic: String, payload: [UInt8], qos: UInt8, packetID: UInt16?, retain: Bool)
    case pingresp
    /// A packet a subscriber does not act on (its type, the high nibble).
    case other(type: UInt8)

    /// A broken packet: the connection is dropped and made again.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    // MARK: Sending

    /// CONNECT: protocol level 4, a client id, optional user name and password, the keep-alive in
    /// seconds, and whether the broker should forget this client's subscriptions and queued
    /// messages (`cleanSession: false` keeps QoS 1 messages published while the host was down).
    static func connect(clientID: String, username: String?, password: String?, keepAlive: UInt16, cleanSession: Bool) -> ByteBuffer {
        var body = ByteBuffer()
        writeString("MQTT", to: &body)
        body.writeInteger(UInt8(4))  // protocol level 3.1.1
        var flags: UInt8 = cleanSession ? 0x02 : 0
        if username != nil { flags |= 0x80 }
        if password != nil { flags |= 0x40 }
        body.writeInteger(flags)
        body.writeInteger(keepAlive)
        writeString(clientID, to: &body)
        if let username { writeString(username, to: &body) }
        if let password { writeString(password, to: &body) }
        return frame(0x10, body)
    }

    /// SUBSCRIBE to one topic filter at a QoS (the broker may grant less).
    static func subscribe(packetID: UInt16, filter: String, qos: UInt8) -> ByteBuffer {
        var body = ByteBuffer()
        body.writeInteger(packetID)
        writeString(filter, to: &body)
        body.writeInteger(qos)
        return frame(0x82, body)
    }

    /// PUBACK: a QoS 1 message is handled (the broker stops resending it).
    static func puback(packetID: UInt16) -> ByteBuffer {
        var body = ByteBuffer()
        body.writeInteger(packetID)
        return frame(0x40, body)
    }

    static var pingreq: ByteBuffer { ByteBuffer(bytes: [0xC0, 0x00]) }
    static var disconnect: ByteBuffer { ByteBuffer(bytes: [0xE0, 0x00]) }

    private static func writeString(_ text: String, to buffer: inout ByteBuffer) {
        let bytes = Array(text.utf8)
        buffer.writeInteger(UInt16(bytes.count))
        buffer.writeBytes(bytes)
    }

    /// The fixed header (type and flags, then the remaining length as 1 to 4 bytes of 7 bits) and the body.
    private static func frame(_ header: UInt8, _ body: ByteBuffer) -> ByteBuffer {
        var out = ByteBuffer()
        out.writeInteger(header)
        var length = body.readableBytes
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            out.writeInteger(byte)
        } while length > 0
        out.writeImmutableBuffer(body)
        return out
    }

    // MARK: Reading

    /// The largest packet read: OwnTracks messages are well under a kilobyte; a card with a photo
    /// is a few tens. Anything near the protocol's 256 MB limit is a broken or hostile broker.
    static let maxPacketBytes = 1 << 20

    /// Reads the next whole packet from `buffer`, consuming it; `nil` while its bytes have not all
    /// arrived (nothing is consumed then).
    static func read(from buffer: inout ByteBuffer) throws -> MQTTPacket? {
        let start = buffer.readerIndex
        guard let header: UInt8 = buffer.getInteger(at: start) else { return nil }
        var length = 0, multiplier = 1, offset = 1
        while true {
            guard let byte: UInt8 = buffer.getInteger(at: start + offset) else { return nil }
            offset += 1
            length += Int(byte & 0x7F) * multiplier
            if byte & 0x80 == 0 { break }
            multiplier *= 128
            guard offset <= 4 else { throw Malformed(description: "a remaining length longer than 4 bytes") }
        }
        guard length <= maxPacketBytes else { throw Malformed(description: "a packet of \(length) bytes") }
        guard buffer.readableBytes >= offset + length else { return nil }
        buffer.moveReaderIndex(forwardBy: offset)
        guard var body = buffer.readSlice(length: length) else { return nil }
        return try parse(header: header, body: &body)
    }

    private static func parse(header: UInt8, body: inout ByteBuffer) throws -> MQTTPacket {
        switch header >> 4 {
        case 2:
            guard let flags: UInt8 = body.readInteger(), let code: UInt8 = body.readInteger() else { throw Malformed(description: "a short CONNACK") }
            return .connack(sessionPresent: flags & 1 == 1, returnCode: code)
        case 9:
            guard let id: UInt16 = body.readInteger() else { throw Malformed(description: "a short SUBACK") }
            return .suback(packetID: id, grantedQoS: body.readBytes(length: body.readableBytes) ?? [])
        case 3:
            let qos = (header >> 1) & 0x03
            guard qos < 3, let topicLength: UInt16 = body.readInteger(), let topic = body.readString(length: Int(topicLength)) else {
                throw Malformed(description: "a PUBLISH without a topic")
            }
            var packetID: UInt16?
            if qos > 0 {
                guard let id: UInt16 = body.readInteger() else { throw Malformed(description: "a PUBLISH without its packet id") }
                packetID = id
            }
            return .publish(topic: topic, payload: body.readBytes(length: body.readableBytes) ?? [], qos: qos, packetID: packetID,
                            retain: header & 1 == 1)
        case 13:
            return .pingresp
        default:
            return .other(type: header >> 4)
        }
    }

    /// CONNACK's refusals, as the standard names them (§3.2.2.3).
    static func refusal(_ code: UInt8) -> String {
        switch code {
        case 1: "the broker does not speak MQTT 3.1.1"
        case 2: "the broker refused the client id"
        case 3: "the broker is unavailable"
        case 4: "the broker refused the user name or password"
        case 5: "the broker refused this client: not authorized"
        default: "the broker refused the connection (code \(code))"
        }
    }
}
