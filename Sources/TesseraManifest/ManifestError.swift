import TesseraSchema
import TesseraSDK

/// Why a manifest or deployment file was refused: the file, the JSON path, what was expected and
/// what was found.
public struct ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, as given.
    public let file: String
    /// Where in the file, as a JSON path (`$.operations[0].name`); `$` for the whole document.
    public let path: String
    /// What the format asks for there.
    public let expected: String
    /// What the file has there.
    public let found: String
    /// The file's further problems the format check found (at most nine), each as
    /// "`path`: expected …, found …": an author fixes them all in one go, not one per run.
    public var more: [String] = []

    public init(file: String, path: String, expected: String, found: String) {
        self.file = file
        self.path = path
        self.expected = expected
        self.found = found
    }

    init(file: String, violation: SchemaViolation) {
        self.init(file: file, path: violation.path, expected: violation.expected, found: violation.found)
    }

    public var description: String {
        let first = "\(file): \(path): expected \(expected), found \(found)"
        return more.isEmpty ? first : first + "; also " + more.joined(separator: "; ")
    }
}

extension JSONValue {
    /// A short rendering for "found …" in error messages: the type and, for scalars, the value.
    var brief: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "boolean \(b)"
        case .integer(let i): return "integer \(i)"
        case .number(let d): return "number \(d)"
        case .string(let s): return s.count > 40 ? "string \"\(s.prefix(40))…\"" : "string \"\(s)\""
        case .array(let a): return "an array of \(a.count)"
        case .object: return "an object"
        }
    }
}
