import Foundation
import Hummingbird

/// JSON in and out of the hub's routes, with Codable models.
enum HubJSON {
    /// Decodes a JSON body (read with ``JSONRequestBody``: 415 for another media type, 413 past the
    /// limit) into `T`; 400 `invalid_input` naming the field at fault.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        let bytes = try await JSONRequestBody.read(request, limit: limit)
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, context) {
            throw APIError(.badRequest, code: "invalid_input", "the member '\(key.stringValue)' is missing",
                           field: path(context.codingPath + [key]))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw APIError(.badRequest, code: "invalid_input", "wrong type: \(context.debugDescription)", field: path(context.codingPath))
        } catch let DecodingError.dataCorrupted(context) {
            throw APIError(.badRequest, code: "invalid_input", "not valid JSON, or a wrong value: \(context.debugDescription)",
                           field: context.codingPath.isEmpty ? nil : path(context.codingPath))
        } catch {
            throw APIError(.badRequest, code: "invalid_input", "the body is not the JSON this route expects")
        }
    }

    /// A response whose body is `value` as JSON with sorted keys.
    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func path(_ keys: [any CodingKey]) -> String {
        "$" + keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
    }
}
