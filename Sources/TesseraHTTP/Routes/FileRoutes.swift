import Foundation
import Hummingbird
import TesseraFiles
import TesseraRuntime
import TesseraSDK

/// Operations that move a file's bytes (their manifest's `"file"`; docs/files.md, "HTTP"):
/// - an **upload** is `POST /v1/plugins/{id}/ops/{op}` with the file as the raw body: the host
///   stores it in the plugin's files (media type sniffed, size and quota checked, as it streams in)
///   and calls the operation with `{"file": {address, size, mediaType}, <query parameters>}`;
/// - a **download** is `GET /v1/plugins/{id}/ops/{op}?…`: the operation is called with the query
///   parameters and answers with a file's address; the edge serves that file's bytes with
///   `ETag` (its SHA-256), `If-None-Match` (304) and single `Range` requests (206, 416).
struct FileRoutes: Sendable {
    let host: any HostAPI
    /// The upload: the body streamed into the plugin's files, then the call.
    func upload(_ request: Request, plugin: String, operation: String, principal: Principal) async throws -> Response {
        let writer = try await host.uploadWriter(plugin, operation, as: principal, mediaType: request.headers[.contentType])
        let file: FileDescriptor
        do {
            for try await chunk in request.body {
                try chunk.withUnsafeReadableBytes { try writer.write($0) }
            }
            file = try await writer.finish()
        } catch {
            await writer.cancel()
            throw error
        }
        var input = Self.queryInput(request)
        input["file"] = file.json
        return .json(try await host.call(plugin, operation, input: .object(input), as: principal))
    }

    /// The download: the operation names a file; its bytes, whole or a range, or 304.
    func download(_ request: Request, context: APIRequestContext) async throws -> Response {
        let plugin = context.parameters.get("id") ?? "", operation = context.parameters.get("op") ?? ""
        guard let principal = context.principal else { throw APIError.unauthorized("this route needs a token") }
        if host.manifest(of: plugin)?.operation(named: operation).map({ $0.file != .download }) == true {
            throw APIError.methodNotAllowed(request.method, request.uri.path, allowed: [.post])
        }
        let file = try await host.download(plugin, operation, input: .object(Self.queryInput(request)), as: principal)
        let descriptor = file.descriptor, etag = "\"\(descriptor.address)\""
        var headers: HTTPFields = [
            .eTag: etag, .acceptRanges: "bytes", .cacheControl: "private, no-cache", .xContentTypeOptions: "nosniff",
        ]
        if let tags = request.headers[.ifNoneMatch], Self.matches(tags, address: descriptor.address) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = descriptor.mediaType
        var range = request.headers[.range].map { ByteRange(header: $0, size: descriptor.size) } ?? .ignored
        // If-Range with another validator: the client's copy is stale, so it gets the whole file.
        if let ifRange = request.headers[.ifRange], ifRange != etag { range = .ignored }
        switch range {
        case .unsatisfiable:
            throw APIError(.rangeNotSatisfiable, code: "range_not_satisfiable",
                           "the range is outside the file (\(descriptor.size) bytes)", headers: [.contentRange: "bytes */\(descriptor.size)"])
        case .satisfiable(let first, let last):
            headers[.contentRange] = "bytes \(first)-\(last)/\(descriptor.size)"
            return Response(status: .partialContent, headers: headers, body: Self.body(file, from: first, through: last))
        case .ignored:
            return Response(status: .ok, headers: headers, body: Self.body(file, from: 0, through: descriptor.size - 1))
        }
    }

    /// The bytes `first…last` of `file`, read a chunk at a time as the connection takes them.
    static func body(_ file: StoredFile, from first: Int64, through last: Int64) -> ResponseBody {
        .fileBytes(from: first, through: last) { offset, count in try file.read(at: offset, count: count) }
    }

    /// Whether an `If-None-Match` list names this file: `*`, or its tag (weak or strong, as RFC 9110
    /// compares for If-None-Match).
    static func matches(_ header: String, address: String) -> Bool {
        header.split(separator: ",").contains { tag in
            var tag = tag.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "\"\(address)\""
        }
    }

    /// The query parameters as the input's string members (a repeated name: the last one).
    static func queryInput(_ request: Request) -> [String: JSONValue] {
        var input: [String: JSONValue] = [:]
        for (name, value) in request.uri.queryParameters { input[String(name)] = .string(String(value)) }
        return input
    }
}
