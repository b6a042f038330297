import Foundation
import Hummingbird

/// Response builders: JSON from fixture dictionaries (nil → null), STAG's plain text.
enum EmulatorResponses {
    static func jsonSafe(_ value: Any?) -> Any {
        switch value {
        case nil: return NSNull()
        case let dict as [String: Any?]: return dict.mapValues { jsonSafe($0) }
        case let list as [[String: Any?]]: return list.map { jsonSafe($0) }
        case let list as [Any?]: return list.map { jsonSafe($0) }
        case let some?: return some
        }
    }

    static func json(_ value: Any?) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: jsonSafe(value), options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func text(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/plain;charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
