import Hummingbird
import TesseraSDK
import TesseraSchema

/// The JSON body of one of the host's own POST routes, checked against the route's schema as an
/// operation's input is (docs/json-schema.md): the first violation is a 400 `invalid_input` whose
/// `field` names the member at fault. The same schema goes into the OpenAPI document, so what is
/// documented is what is enforced.
struct RouteInput: Sendable {
    /// The schema, as written (for the OpenAPI document).
    let document: JSONValue
    private let schema: JSONSchema

    /// `document` must be a valid schema: it is the host's own, written in code.
    init(_ document: JSONValue) {
        self.document = document
        schema = try! JSONSchema(document)
    }

    /// Reads the body (415/413 as for an operation; an empty body is `{}`) and checks it.
    func read(_ request: Request, limit: Int) async throws -> JSONValue {
        let bytes = try await JSONRequestBody.read(request, limit: limit)
        let value: JSONValue
        do { value = try JSONValue(parsing: bytes) } catch {
            throw APIError(.badRequest, code: "invalid_input", "the body is not JSON: \(error)", field: "$")
        }
        if let violation = schema.validate(value).first {
            throw APIError(.badRequest, code: "invalid_input", violation.message, field: violation.path)
        }
        return value
    }
}
