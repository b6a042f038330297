import TesseraSDK

/// Writes a batch in the ``SyncWire`` format; the dictionaries live for one batch.
struct ChangeEncoder {
    private var out: [UInt8] = []
    private var strings: [String: UInt64] = [:]
    private var rows: [String: UInt64] = [:]
    private var nodes: [UInt64: UInt64] = [:]
    private var previousMillis: Int64 = 0

    mutating func encode(_ changes: [SyncChange]) -> [UInt8] {
        out = SyncWire.magic
        let records = Self.records(changes)
        varint(UInt64(records.count))
        for record in records { write(record) }
        return out
    }

    /// Consecutive changes of one row, timestamp and causal length; an existence change only first.
    private static func records(_ changes: [SyncChange]) -> [ArraySlice<SyncChange>] {
        var records: [ArraySlice<SyncChange>] = []
        var start = changes.startIndex
        for i in changes.indices.dropFirst() {
            let a = changes[start], b = changes[i]
            let same = a.space == b.space && a.table == b.table && a.row == b.row && a.timestamp == b.timestamp
                && a.causalLength == b.causalLength && b.value != nil
            if !same {
                records.append(changes[start..<i])
                start = i
            }
        }
        if start < changes.endIndex { records.append(changes[start...]) }
        return records
    }

    private mutating func write(_ record: ArraySlice<SyncChange>) {
        let first = record[record.startIndex]
        string(first.space)
        string(first.table)
        row(first.row)
        varint(ZigZag.encode(first.timestamp.millis &- previousMillis))
        previousMillis = first.timestamp.millis
        varint(UInt64(first.timestamp.counter))
        node(first.timestamp.node)
        varint(UInt64(first.causalLength))
        let existence: UInt64 = first.value == nil ? 1 : 0
        varint(UInt64(record.count - Int(existence)) << 1 | existence)
        for change in record {
            guard case .cell(let column, let value, let supersedes) = change.kind else { continue }
            string(column)
            cell(value, supersedes: supersedes, millis: first.timestamp.millis)
        }
    }

    private mutating func cell(_ value: SQLValue, supersedes: [HLCTimestamp], millis: Int64) {
        let flag = supersedes.isEmpty ? 0 : WireTag.supersedes
        switch value {
        case .null: out.append(WireTag.null | flag)
        case .integer(let i): out.append(WireTag.integer | flag); varint(ZigZag.encode(i))
        case .real(let d): out.append(WireTag.real | flag); fixed64(d.bitPattern)
        case .text(let s): out.append(WireTag.text | flag); bytes(Array(s.utf8))
        case .blob(let b): out.append(WireTag.blob | flag); bytes(b)
        @unknown default: out.append(WireTag.null | flag)
        }
        guard !supersedes.isEmpty else { return }
        varint(UInt64(supersedes.count))
        for stamp in supersedes {
            varint(ZigZag.encode(stamp.millis &- millis))
            varint(UInt64(stamp.counter))
            node(stamp.node)
        }
    }

    private mutating func string(_ text: String) {
        if let index = strings[text] { return varint(index + 1) }
        strings[text] = UInt64(strings.count)
        varint(0)
        bytes(Array(text.utf8))
    }

    private mutating func row(_ id: String) {
        if let index = rows[id] { return varint(index + WireRow.firstReference) }
        rows[id] = UInt64(rows.count)
        if let uuid = UUIDText.pack(id) {
            varint(uuid.uppercase ? WireRow.uppercaseUUID : WireRow.lowercaseUUID)
            out.append(contentsOf: uuid.bytes)
        } else {
            varint(WireRow.text)
            bytes(Array(id.utf8))
        }
    }

    private mutating func node(_ node: HLCNode) {
        if let index = nodes[node.value] { return varint(index + 1) }
        nodes[node.value] = UInt64(nodes.count)
        varint(0)
        fixed64(node.value)
    }

    private mutating func bytes(_ data: [UInt8]) {
        varint(UInt64(data.count))
        out.append(contentsOf: data)
    }

    private mutating func fixed64(_ value: UInt64) {
        var shift: UInt64 = 0
        while shift < 64 {
            out.append(UInt8(truncatingIfNeeded: value >> shift))
            shift += 8
        }
    }

    private mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }
}
