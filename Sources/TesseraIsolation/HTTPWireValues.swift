import Foundation
import TesseraSDK

/// The HTTP client's values on the wire: the timeout as seconds, bodies as base64.
extension OutboundRequest {
    public var wire: JSONValue {
        let (seconds, attoseconds) = timeout.components
        return ["method": .string(method), "url": .string(url), "headers": .object(headers.mapValues(JSONValue.string)),
                "body": BytesWire.encode(body), "timeout": .number(Double(seconds) + Double(attoseconds) / 1e18)]
    }
    public init(wire: JSONValue) throws {
        let headers = (wire["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        let timeout = wire["timeout"]?.doubleValue ?? 30
        self.init(method: try wire.wireString("method"), url: try wire.wireString("url"), headers: headers,
                  body: try BytesWire.decode(wire["body"]), timeout: .milliseconds(Int64((timeout * 1000).rounded())))
    }
}

extension OutboundResponse {
    public var wire: JSONValue {
        ["status": .integer(Int64(status)), "headers": .object(headers.mapValues(JSONValue.string)), "body": BytesWire.encode(body)]
    }
    public init(wire: JSONValue) throws {
        guard let status = wire["status"]?.integerValue else { throw WireFormatError("an HTTP status", wire["status"]) }
        self.init(status: Int(status), headers: (wire["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue),
                  body: try BytesWire.decode(wire["body"]))
    }
}
