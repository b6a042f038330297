import TesseraSDK

/// Reads a batch in the ``SyncWire`` format, checking every step.
struct ChangeDecoder {
    private let input: [UInt8]
    private var position = 0
    private var strings: [String] = []
    private var rows: [String] = []
    private var nodes: [HLCNode] = []
    private var previousMillis: Int64 = 0

    init(_ input: [UInt8]) { self.input = input }

    mutating func decode() throws -> [SyncChange] {
        guard input.count >= 4, Array(input[0..<4]) == SyncWire.magic else { throw failure("it does not start with TSY1") }
        position = 4
        let count = try varint()
        var changes: [SyncChange] = []
        var record: UInt64 = 0
        while record < count {
            try readRecord(into: &changes)
            record += 1
        }
        guard position == input.count else { throw failure("\(input.count - position) bytes follow the last record") }
        return changes
    }

    private mutating func readRecord(into changes: inout [SyncChange]) throws {
        let space = try string(), table = try string(), row = try rowID()
        let millis = previousMillis &+ ZigZag.decode(try varint())
        previousMillis = millis
        let timestamp = try stamp(millis: millis, counter: try varint(), node: try node())
        let length = try varint()
        guard length <= UInt64(Int64.max) else { throw failure("a causal length is out of range") }
        let shape = try varint()
        func change(_ kind: SyncChange.Kind) -> SyncChange {
            SyncChange(space: space, table: table, row: row, causalLength: Int64(length), timestamp: timestamp, kind: kind)
        }
        if shape & 1 == 1 { changes.append(change(.existence)) }
        var cell: UInt64 = 0
        while cell < shape >> 1 {
            let column = try string()
            let (value, supersedes) = try cellValue(millis: millis)
            changes.append(change(.cell(column: column, value: value, supersedes: supersedes)))
            cell += 1
        }
    }

    private mutating func cellValue(millis: Int64) throws -> (SQLValue, [HLCTimestamp]) {
        let tag = try byte()
        let value: SQLValue
        switch tag & WireTag.typeMask {
        case WireTag.null: value = .null
        case WireTag.integer: value = .integer(ZigZag.decode(try varint()))
        case WireTag.real: value = .real(Double(bitPattern: try fixed64()))
        case WireTag.text: value = .text(try utf8(try bytes()))
        case WireTag.blob: value = .blob(Array(try bytes()))
        default: throw failure("value tag \(tag) is unknown")
        }
        guard tag & ~(WireTag.typeMask | WireTag.supersedes) == 0 else { throw failure("value tag \(tag) is unknown") }
        var supersedes: [HLCTimestamp] = []
        if tag & WireTag.supersedes != 0 {
            let count = try varint()
            var i: UInt64 = 0
            while i < count {
                let at = millis &+ ZigZag.decode(try varint())
                supersedes.append(try stamp(millis: at, counter: try varint(), node: try node()))
                i += 1
            }
        }
        return (value, supersedes)
    }

    private func stamp(millis: Int64, counter: UInt64, node: HLCNode) throws -> HLCTimestamp {
        guard counter <= UInt64(UInt16.max) else { throw failure("a clock counter is out of range") }
        do {
            return try HLCTimestamp(millis: millis, counter: UInt16(counter), node: node)
        } catch {
            throw failure("a timestamp is out of range (\(millis) ms)")
        }
    }

    private mutating func string() throws -> String {
        let reference = try varint()
        if reference == 0 {
            let text = try utf8(try bytes())
            strings.append(text)
            return text
        }
        guard reference - 1 < UInt64(strings.count) else { throw failure("string \(reference - 1) was never defined") }
        return strings[Int(reference - 1)]
    }

    private mutating func rowID() throws -> String {
        let reference = try varint()
        let id: String
        switch reference {
        case WireRow.text: id = try utf8(try bytes())
        case WireRow.lowercaseUUID, WireRow.uppercaseUUID:
            id = UUIDText.text(try take(16), uppercase: reference == WireRow.uppercaseUUID)
        default:
            let index = reference - WireRow.firstReference
            guard index < UInt64(rows.count) else { throw failure("row \(index) was never defined") }
            return rows[Int(index)]
        }
        rows.append(id)
        return id
    }

    private mutating func node() throws -> HLCNode {
        let reference = try varint()
        if reference == 0 {
            let node = HLCNode(try fixed64())
            nodes.append(node)
            return node
        }
        guard reference - 1 < UInt64(nodes.count) else { throw failure("node \(reference - 1) was never defined") }
        return nodes[Int(reference - 1)]
    }

    private mutating func bytes() throws -> ArraySlice<UInt8> {
        let count = try varint()
        guard count <= UInt64(input.count - position) else { throw failure("a length of \(count) runs past the end") }
        return try take(Int(count))
    }

    private func utf8(_ bytes: ArraySlice<UInt8>) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw failure("text at byte \(position) is not UTF-8") }
        return text
    }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count <= input.count - position else { throw failure("it ends in the middle of a value") }
        defer { position += count }
        return input[position..<(position + count)]
    }

    private mutating func byte() throws -> UInt8 {
        guard position < input.count else { throw failure("it ends in the middle of a value") }
        defer { position += 1 }
        return input[position]
    }

    private mutating func fixed64() throws -> UInt64 {
        var value: UInt64 = 0
        let bytes = try take(8)
        for i in 0..<8 { value |= UInt64(bytes[bytes.startIndex + i]) << UInt64(8 * i) }
        return value
    }

    private mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64, shift < 63 || b <= 1 else { throw failure("a varint at byte \(position) overflows 64 bits") }
            value |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return value }
            shift += 7
        }
    }

    private func failure(_ reason: String) -> SyncError {
        .malformedEncoding(reason)
    }
}
