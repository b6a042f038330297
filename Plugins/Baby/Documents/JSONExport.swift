import Foundation

/// JSON export of lists of records (any `Encodable`): stable bytes for the same records (keys
/// sorted), dates as ISO 8601 in UTC, `/` not escaped, non-finite numbers refused.
public enum JSONExport {
    /// The records as a pretty-printed JSON array.
    /// - Throws: `EncodingError` when a record cannot be encoded (e.g. a NaN).
    public static func array<Record: Encodable>(_ records: [Record]) throws -> Data {
        try encoder(pretty: true).encode(records)
    }

    /// An export document: `{"count": n, "exportedAt": "…Z", "format": format, "records": […]}`,
    /// pretty-printed, so a reader can tell what it holds and when it was made.
    public static func document<Record: Encodable>(_ records: [Record], format: String, exportedAt: Date) throws -> Data {
        try encoder(pretty: true).encode(Document(count: records.count, exportedAt: exportedAt, format: format, records: records))
    }

    /// JSON Lines: one compact record per line, each line ending in LF.
    public static func lines<Record: Encodable>(_ records: [Record]) throws -> Data {
        let encoder = encoder(pretty: false)
        var data = Data()
        for record in records {
            data.append(try encoder.encode(record))
            data.append(0x0A)
        }
        return data
    }

    private struct Document<Record: Encodable>: Encodable {
        let count: Int
        let exportedAt: Date
        let format: String
        let records: [Record]
    }

    private static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
