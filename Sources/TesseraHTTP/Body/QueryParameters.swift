import Hummingbird

/// The query parameters of a request, read with the checks an API route needs: a parameter that is
/// present but not of the expected form is refused with 400 `invalid_input`, and `field` names the
/// parameter (`limit`), so a client learns which one — never a silent default.
struct QueryParameters {
    private let parameters: Hummingbird.Parameters

    init(_ request: Request) { parameters = request.uri.queryParameters }

    /// `true` or `false`; `nil` when absent.
    func bool(_ name: String) throws -> Bool? {
        guard let text = parameters.get(name) else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default: throw Self.invalid(name, "expected true or false, found '\(text.prefix(40))'")
        }
    }

    /// A whole number in `range`; `nil` when absent.
    func integer(_ name: String, in range: ClosedRange<Int64>) throws -> Int64? {
        guard let text = parameters.get(name) else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw Self.invalid(name, "expected a whole number from \(range.lowerBound) to \(range.upperBound), found '\(text.prefix(40))'")
        }
        return value
    }

    /// The raw text; `nil` when absent.
    func string(_ name: String) -> String? { parameters.get(name) }

    static func invalid(_ name: String, _ problem: String) -> APIError {
        APIError(.badRequest, code: "invalid_input", "query parameter \(name): \(problem)", field: name)
    }
}
