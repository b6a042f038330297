import Hummingbird
import TesseraSDK

extension Response {
    /// A response whose body is `value` as compact JSON.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        text(value.serialized(), contentType: "application/json", status: status)
    }

    /// A response whose body is `text` as UTF-8, of the given media type.
    static func text(_ text: String, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
