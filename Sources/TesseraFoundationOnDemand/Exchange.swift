import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The parts of Foundation the host needs only now and then — `URLSession` (libcurl, GnuTLS, …) and
// `XMLParser` (libxml2) — in a library of their own that the host loads on first use
// (`OnDemandFoundation` in TesseraOnDemand; docs/architecture.md, "Loaded on first use"). Linked
// into the executable, they were mapped and relocated at every start, about 6.5 MB resident,
// although most hosts never send a request.
//
// The boundary is C: bytes in, bytes out (a frame: a 4-byte big-endian length, a JSON header,
// then the body). This library links no Tessera module, so no Swift type crosses it and no
// module exists twice in the process.

/// The library's boundary version: the host refuses a library that answers another.
@_cdecl("tessera_on_demand_abi")
public func onDemandABI() -> Int32 { 1 }

/// Called once with the answer's bytes, on a thread of URLSession's; the bytes live until it returns.
public typealias OnDemandDone = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Void

/// One HTTP request and its whole answer. The request frame's header: `method`, `url`, `headers`
/// (pairs), `timeout` (seconds), `session` (which of ``Sessions`` sends it). The answer's header is
/// `{"status", "headers": {lowercased name: value}}` with the body after it, or
/// `{"error": {"code": URLError code, "message"}}`.
@_cdecl("tessera_on_demand_exchange")
public func onDemandExchange(_ bytes: UnsafePointer<UInt8>, _ count: Int, _ context: UnsafeMutableRawPointer?, _ done: OnDemandDone) {
    let frame = Array(UnsafeBufferPointer(start: bytes, count: count))
    guard let (header, body) = OnDemandFrame.split(frame), let url = (header["url"] as? String).flatMap(URL.init(string:)) else {
        return OnDemandFrame.answer(["error": ["code": URLError.Code.badURL.rawValue, "message": "a request the library cannot read"]], [], context, done)
    }
    var request = URLRequest(url: url)
    request.httpMethod = header["method"] as? String ?? "GET"
    for pair in header["headers"] as? [[String]] ?? [] where pair.count == 2 { request.setValue(pair[1], forHTTPHeaderField: pair[0]) }
    if let timeout = header["timeout"] as? Double { request.timeoutInterval = timeout }
    if !body.isEmpty { request.httpBody = Data(body) }
    let session = Sessions.named(header["session"] as? String ?? "")
    let reply = Reply(context: context, done: done)
    session.dataTask(with: request) { data, response, error in
        if let error {
            let code = (error as? URLError)?.code.rawValue ?? URLError.Code.unknown.rawValue
            return reply.send(["error": ["code": code, "message": error.localizedDescription]])
        }
        guard let http = response as? HTTPURLResponse else {
            return reply.send(["error": ["code": URLError.Code.badServerResponse.rawValue, "message": "the answer is not HTTP"]])
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)".lowercased()] = "\(value)" }
        reply.send(["status": http.statusCode, "headers": headers], [UInt8](data ?? Data()))
    }.resume()
}

/// Where an asynchronous answer goes: the host's context and callback, carried to URLSession's thread.
struct Reply: @unchecked Sendable {
    let context: UnsafeMutableRawPointer?
    let done: OnDemandDone

    func send(_ header: [String: Any], _ body: [UInt8] = []) { OnDemandFrame.answer(header, body, context, done) }
}

/// The sessions, one per kind of sender, each made on first use and kept (they hold no state:
/// no cookies, cache or credentials).
enum Sessions {
    /// The HTTP client capability: never follows a server's redirect (the host applies the
    /// deployment's own redirects and checks grants before it sends).
    static let outbound = URLSession(configuration: ephemeral(), delegate: RefuseRedirects(), delegateQueue: nil)
    /// Webhooks and the hub's channels: at most 4 connections per host, 10 s per request.
    static let delivery: URLSession = {
        let configuration = ephemeral()
        configuration.timeoutIntervalForRequest = 10
        configuration.httpMaximumConnectionsPerHost = 4
        return URLSession(configuration: configuration)
    }()
    /// The device's hub client and the CLI's calls to a running host.
    static let plain = URLSession(configuration: ephemeral())

    static func named(_ name: String) -> URLSession {
        switch name {
        case "outbound": outbound
        case "delivery": delivery
        default: plain
        }
    }

    static func ephemeral() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }
}

/// Answers every server redirect with "don't follow": the caller gets the 3xx response itself.
final class RefuseRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// The frames that cross the boundary: a 4-byte big-endian length, that many bytes of JSON header,
/// then the body. The host has the other half (`OnDemandFrame` in TesseraOnDemand).
enum OnDemandFrame {
    static func split(_ frame: [UInt8]) -> ([String: Any], ArraySlice<UInt8>)? {
        guard frame.count >= 4 else { return nil }
        let length = Int(frame[0]) << 24 | Int(frame[1]) << 16 | Int(frame[2]) << 8 | Int(frame[3])
        guard frame.count >= 4 + length,
              let header = try? JSONSerialization.jsonObject(with: Data(frame[4..<(4 + length)])) as? [String: Any] else { return nil }
        return (header, frame[(4 + length)...])
    }

    static func answer(_ header: [String: Any], _ body: [UInt8], _ context: UnsafeMutableRawPointer?, _ done: OnDemandDone) {
        let json = [UInt8]((try? JSONSerialization.data(withJSONObject: header)) ?? Data("{}".utf8))
        let n = UInt32(json.count)
        var frame: [UInt8] = [UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)]
        frame += json
        frame += body
        frame.withUnsafeBufferPointer { done(context, $0.baseAddress, $0.count) }
    }
}
