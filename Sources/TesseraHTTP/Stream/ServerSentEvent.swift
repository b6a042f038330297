import NIOCore
import TesseraSDK

/// One message of a Server-Sent Events stream, framed as the HTML standard's `text/event-stream`:
/// `id:`, `event:` and `data:` lines, ended by a blank line. The data is compact JSON, which never
/// holds a line break (JSON escapes them in strings), so one `data:` line carries it.
struct ServerSentEvent: Sendable {
    var id: String
    var event: String
    var data: JSONValue

    var text: String { "id: \(id)\nevent: \(event)\ndata: \(data.serialized())\n\n" }

    /// A comment line: ignored by clients, it keeps proxies and the connection from idling out.
    static let keepAlive = ": keep-alive\n\n"

    /// Sent first: how long a client waits before reconnecting after the stream breaks (ms).
    static let preamble = "retry: 3000\n\n"
}
