import Hummingbird
import TesseraRuntime
@_spi(TesseraHost) import TesseraSDK

extension Response {
    /// A response whose body is `value` as compact JSON.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        // Written as bytes straight into the body: through a `String`, the text was checked as
        // UTF-8 and copied once more.
        var bytes: [UInt8] = []
        value.appendSerialized(to: &bytes)
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A response whose body is an operation's answer: text as it came (a process-tier plugin's,
    /// checked on the way in), a value as compact JSON.
    static func json(_ answer: OperationAnswer) -> Response {
        guard case .text(let text) = answer else { return .json(answer.value) }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
    }

    /// A response whose body is `text` as UTF-8, of the given media type.
    static func text(_ text: String, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
