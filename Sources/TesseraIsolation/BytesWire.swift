import Foundation
import TesseraSDK

/// Bytes on the wire: base64 in a JSON string (file chunks, HTTP bodies). The proxies keep each
/// piece well under the frame's 64 MiB limit (``BytesWire/pieceSize``).
public enum BytesWire {
    /// The largest piece of bytes one frame carries: 8 MiB, about 11 MiB as base64.
    public static let pieceSize = 8 << 20

    public static func encode(_ bytes: [UInt8]) -> JSONValue { .string(Data(bytes).base64EncodedString()) }

    public static func decode(_ json: JSONValue?) throws -> [UInt8] {
        guard let text = json?.stringValue, let data = Data(base64Encoded: text) else { throw WireFormatError("base64 bytes", json) }
        return Array(data)
    }
}
