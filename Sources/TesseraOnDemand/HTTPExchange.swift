import Foundation

/// One HTTP request and its whole answer, sent by `URLSession` in the library loaded on first use
/// (``OnDemandFoundation``). Failures are `URLError`s with URLSession's codes and descriptions, so
/// callers tell them apart as before.
public struct HTTPExchange: Sendable {
    /// Which of the library's sessions sends a request (each keeps no cookies, cache or credentials).
    public enum Session: String, Sendable {
        /// Never follows a server's redirect: the HTTP client capability.
        case outbound
        /// At most 4 connections per host, 10 s per request: webhooks and the hub's channels.
        case delivery
        /// The hub client and the CLI.
        case plain
    }

    public var method: String
    public var url: URL
    /// Header fields, in order; a name given twice keeps the last value.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Seconds before the request gives up (URLSession's `timeoutInterval`).
    public var timeout: TimeInterval
    public var session: Session

    public init(_ method: String, _ url: URL, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                timeout: TimeInterval = 60, session: Session = .plain) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.session = session
    }

    /// The answer: status, header fields by lowercased name, and the whole body.
    public struct Response: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: [UInt8]
    }

    /// Sends the request and reads the whole answer.
    public func send() async throws -> Response {
        let library = try OnDemandFoundation.library.get()
        let header: [String: Any] = ["method": method, "url": url.absoluteString, "headers": headers.map { [$0.name, $0.value] },
                                     "timeout": timeout, "session": session.rawValue]
        let answer = await OnDemandFoundation.call(library.exchange, OnDemandFrame.make(header, body))
        guard let (fields, body) = OnDemandFrame.split(answer) else { throw URLError(.cannotParseResponse) }
        if let error = fields["error"] as? [String: Any] {
            let code = URLError.Code(rawValue: error["code"] as? Int ?? URLError.Code.unknown.rawValue) ?? .unknown
            throw URLError(code, userInfo: [NSLocalizedDescriptionKey: error["message"] as? String ?? "network error \(code.rawValue)"])
        }
        return Response(status: fields["status"] as? Int ?? 0, headers: fields["headers"] as? [String: String] ?? [:], body: body)
    }
}

/// What `XMLParser` reported of a document, in order (``OnDemandFoundation``): for readers that
/// follow elements as they open and close.
public struct XMLEvents: Sendable {
    public enum Event: Sendable {
        case start(name: String, attributes: [String: String], line: Int)
        case text(String)
        case end(name: String, line: Int)
        /// A well-formedness error, with `XMLParser`'s code.
        case error(code: Int, line: Int)
    }

    public let events: [Event]
    /// Whether `parse()` returned true (on Linux it may after libxml2 recovered from an error).
    public let parsed: Bool
    /// The parser's error code at the end, if any, and the line it stopped on.
    public let errorCode: Int?
    public let line: Int

    /// Parses `data` with namespaces processed.
    public init(parsing data: Data) throws {
        let library = try OnDemandFoundation.library.get()
        let answer = data.withUnsafeBytes { OnDemandFoundation.callNow(library.xmlEvents, $0) }
        guard let (fields, _) = OnDemandFrame.split(answer) else { throw URLError(.cannotParseResponse) }
        events = (fields["events"] as? [[Any]] ?? []).compactMap(Self.event)
        parsed = fields["parsed"] as? Bool ?? false
        errorCode = fields["error"] as? Int
        line = fields["line"] as? Int ?? 0
    }

    private static func event(_ raw: [Any]) -> Event? {
        switch raw.first as? String {
        case "start": .start(name: raw[1] as? String ?? "", attributes: raw[2] as? [String: String] ?? [:], line: raw[3] as? Int ?? 0)
        case "text": .text(raw[1] as? String ?? "")
        case "end": .end(name: raw[1] as? String ?? "", line: raw[2] as? Int ?? 0)
        case "error": .error(code: raw[1] as? Int ?? 0, line: raw[2] as? Int ?? 0)
        default: nil
        }
    }
}
