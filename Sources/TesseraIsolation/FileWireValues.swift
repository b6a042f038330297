import Foundation
import TesseraSDK

/// The files capability's values on the wire (``FilesProxy``, the host's forwarding).
extension FileDescriptor {
    public var wire: JSONValue { json }
    public init(wire: JSONValue) throws {
        guard let descriptor = FileDescriptor(json: wire) else { throw WireFormatError("a file descriptor", wire) }
        self = descriptor
    }
}

extension FileLink {
    public var wire: JSONValue { ["table": .string(table), "id": .string(id)] }
    public init(wire: JSONValue) throws {
        self.init(table: try wire.wireString("table"), id: try wire.wireString("id"))
    }
}

/// A byte range as `[lower, upper)`, or `null` for the whole file.
public enum RangeWire {
    public static func encode(_ range: Range<Int64>?) -> JSONValue {
        range.map { .array([.integer($0.lowerBound), .integer($0.upperBound)]) } ?? .null
    }
    public static func decode(_ json: JSONValue?) throws -> Range<Int64>? {
        guard let json, json != .null else { return nil }
        guard let pair = json.arrayValue, pair.count == 2, let lower = pair[0].integerValue, let upper = pair[1].integerValue,
              lower <= upper else { throw WireFormatError("a byte range [lower, upper]", json) }
        return lower..<upper
    }
}
