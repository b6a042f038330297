import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A minimal HTTP client over URLSession for the benchmarks that talk to a server on loopback
/// (`tessera-bench hub`, `tessera-bench memory`).
struct BenchHTTPClient {
    let port: Int

    /// One request; the status, the headers and the body. `token` goes out as a bearer token.
    func send(_ method: String, _ path: String, token: String? = nil, body: [UInt8]? = nil,
              contentType: String? = nil) async throws -> (Int, [String: String], [UInt8]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 120
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let body { request.httpBody = Data(body) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers["\(key)"] = "\(value)" }
        return (http.statusCode, headers, Array(data))
    }
}
