import Foundation
import Hummingbird
import TesseraHub

/// The hub's file routes (docs/hub.md, "Files"): a device uploads the bytes of a file its records
/// refer to, resumably, and another member's device downloads them, whole or by ranges.
///
/// - `GET /v1/hub/files/{address}/upload` → `{"held": bool, "offset": n}`: whether the caller need
///   not upload it (the hub has it and they hold it), and how many bytes of their upload arrived.
/// - `PUT /v1/hub/files/{address}?size=S&offset=N`, the body bytes `N…`: 200 `{"offset", "complete":
///   false}` while bytes are missing, 201 `{"complete": true}` once the file is whole and verified.
/// - `GET /v1/hub/files/{address}?plugin=P`: the bytes, if a space of the caller's holds a record of
///   P that refers to them; `ETag`, `If-None-Match` and one `Range` as for downloads on a device.
struct HubFileRoutes: Sendable {
    let files: HubFiles
    let routes: HubRoutes
    static func add(to table: inout RouteTable, files: HubFiles, routes: HubRoutes) {
        let fileRoutes = HubFileRoutes(files: files, routes: routes)
        table.add(.get, "/v1/hub/files/:address/upload", fileRoutes.uploadState)
        table.add(.put, "/v1/hub/files/:address", fileRoutes.upload)
        table.add(.get, "/v1/hub/files/:address", fileRoutes.download)
    }

    struct UploadStateOutput: Encodable { let held: Bool; let offset: Int64 }
    struct UploadOutput: Encodable { let address: String; let offset: Int64; let complete: Bool }

    func uploadState(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await routes.authenticate(request)
        let state = try await routes.run { try await files.uploadState(of: context.parameters.get("address") ?? "", person: device.person) }
        return try HubJSON.response(UploadStateOutput(held: state.held, offset: state.offset))
    }

    func upload(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await routes.authenticate(request)
        let address = context.parameters.get("address") ?? ""
        let query = QueryParameters(request)
        guard let size = try query.integer("size", in: 1...Int64.max) else {
            throw APIError(.badRequest, code: "invalid_input", "an upload names the file's whole size: ?size=<bytes>", field: "size")
        }
        let offset = try query.integer("offset", in: 0...Int64.max) ?? 0
        let body = request.body.map { Array($0.readableBytesView) }
        let progress = try await routes.run {
            try await files.upload(body, address: address, size: size, offset: offset, person: device.person)
        }
        return try HubJSON.response(UploadOutput(address: address, offset: progress.offset, complete: progress.complete),
                                    status: progress.complete ? .created : .ok)
    }

    func download(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await routes.authenticate(request)
        let address = context.parameters.get("address") ?? ""
        guard let plugin = QueryParameters(request).string("plugin") else {
            throw APIError(.badRequest, code: "invalid_plugin", "a download names the plugin whose record refers to the file: ?plugin=<id>", field: "plugin")
        }
        let blob = try await routes.run { try await files.open(address, plugin: plugin, person: device.person) }
        let etag = "\"\(address)\""
        var headers: HTTPFields = [.eTag: etag, .acceptRanges: "bytes", .cacheControl: "private, no-cache", .xContentTypeOptions: "nosniff",
                                   .contentType: "application/octet-stream"]
        if let tags = request.headers[.ifNoneMatch], FileRoutes.matches(tags, address: address) {
            return Response(status: .notModified, headers: headers)
        }
        var range = request.headers[.range].map { ByteRange(header: $0, size: blob.size) } ?? .ignored
        if let ifRange = request.headers[.ifRange], ifRange != etag { range = .ignored }
        switch range {
        case .unsatisfiable:
            throw APIError(.rangeNotSatisfiable, code: "range_not_satisfiable",
                           "the range is outside the file (\(blob.size) bytes)", headers: [.contentRange: "bytes */\(blob.size)"])
        case .satisfiable(let first, let last):
            headers[.contentRange] = "bytes \(first)-\(last)/\(blob.size)"
            return Response(status: .partialContent, headers: headers, body: Self.body(blob, from: first, through: last))
        case .ignored:
            return Response(status: .ok, headers: headers, body: Self.body(blob, from: 0, through: blob.size - 1))
        }
    }

    /// The bytes `first…last` of `blob`, a chunk at a time as the connection takes them.
    static func body(_ blob: HubBlob, from first: Int64, through last: Int64) -> ResponseBody {
        .fileBytes(from: first, through: last) { offset, count in try blob.read(at: offset, count: count) }
    }
}
