@_spi(TesseraHost) import TesseraSDK

/// A call's answer as it came from the other side: the `result` of its reply frame, as JSON text
/// not yet read.
///
/// The reader thread only finds where the result is (``PeerMessage/init(frame:)``); the caller
/// decides what to make of it. A caller that wants a value parses it (``value()``); the host's
/// forwarder of an operation checks it and hands the text on as it is (``checkedText()``), so an
/// answer that goes to an HTTP response is never read into a tree and written out again.
/// Either way the text is held to the parser's rules: one that breaks them is the other side's
/// fault, and the caller ends the connection over it (``PeerConnection``), as a malformed frame does.
public struct AnswerText: Sendable, Equatable {
    /// The result's bytes (`null` when the reply had none).
    public let bytes: [UInt8]

    /// The text of a result as read from a frame.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The text of a value (an answer this side made itself, or a test's).
    public init(_ value: JSONValue) {
        var bytes: [UInt8] = []
        value.appendSerialized(to: &bytes)
        self.bytes = bytes
    }

    /// The answer read into a value.
    public func value() throws(FrameError) -> JSONValue {
        do { return try JSONValue(parsing: bytes) } catch { throw FrameError.notJSON("the answer: \(error)") }
    }

    /// The answer's text, checked to be JSON by the parser's rules without reading it into a value.
    public func checkedText() throws(FrameError) -> [UInt8] {
        do { try JSONValue.check(text: bytes) } catch { throw FrameError.notJSON("the answer: \(error)") }
        return bytes
    }
}
