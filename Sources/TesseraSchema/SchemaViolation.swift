/// One way in which a JSON instance does not satisfy a ``JSONSchema``.
///
/// A violation names where in the instance the problem is (``path``), which schema keyword
/// caught it (``keyword``), what the schema asked for (``expected``) and what the instance holds
/// (``found``). ``message`` puts the four together as one sentence for people:
///
/// ```
/// $.amount: expected integer, found string "12"
/// $.name: expected a value (required member), found missing
/// $.extra: member is not allowed; expected only members "amount", "currency", found integer 3
/// ```
public struct SchemaViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The instance location as a JSON path: `"$"` for the whole instance, `"$.amount"`,
    /// `"$.items[2].name"`; member names that are not identifiers are quoted, as in `$["a b"]`.
    ///
    /// For `required` this is the path of the missing member; for `additionalProperties: false`
    /// it is the path of the member that is not allowed.
    public let path: String
    /// The schema keyword that failed: `"type"`, `"required"`, `"minimum"`, `"oneOf"`, ...
    public let keyword: String
    /// What the schema asked for, in plain words: `"integer"`, `"at least 1"`,
    /// `"one of \"cash\", \"bank\""`, `"a date (YYYY-MM-DD)"`.
    public let expected: String
    /// What the instance holds, briefly: `"string \"abc\""`, `"0"`, `"missing"`. Long strings and
    /// large values are shortened with `…`.
    public let found: String
    /// Whether the instance member at ``path`` is not allowed at all (rather than having a wrong value).
    let isDisallowed: Bool

    /// Creates a violation.
    ///
    /// - Parameters:
    ///   - path: The instance location as a JSON path, such as `"$.items[2].name"`.
    ///   - keyword: The schema keyword that failed.
    ///   - expected: What the schema asked for, in plain words.
    ///   - found: What the instance holds, briefly.
    public init(path: String, keyword: String, expected: String, found: String) {
        self.init(path: path, keyword: keyword, expected: expected, found: found, isDisallowed: false)
    }

    init(path: String, keyword: String, expected: String, found: String, isDisallowed: Bool) {
        self.path = path
        self.keyword = keyword
        self.expected = expected
        self.found = found
        self.isDisallowed = isDisallowed
    }

    /// One readable sentence: `"$.amount: expected integer, found string \"12\""`.
    ///
    /// A member that is not allowed at all reads
    /// `"$.extra: member is not allowed; expected only members \"a\", \"b\", found integer 3"`.
    public var message: String {
        if isDisallowed {
            return "\(path): member is not allowed; expected \(expected), found \(found)"
        }
        return "\(path): expected \(expected), found \(found)"
    }

    /// The same as ``message``.
    public var description: String { message }
}

/// Why a schema could not be compiled: where in the schema, and what is wrong there.
///
/// ``JSONSchema/init(_:)`` refuses keywords it does not enforce and keyword values of the wrong
/// type, so that a schema author never believes a rule is checked when it is not.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The schema location as a JSON Pointer fragment, such as `"#/properties/amount/minimum"`;
    /// `"#"` is the schema itself.
    public let location: String
    /// What is wrong there, in plain words, such as `"minimum must be a number, found string \"3\""`.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - location: The schema location as a JSON Pointer fragment, such as `"#/properties/a"`.
    ///   - message: What is wrong there, in plain words.
    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    /// `"<location>: <message>"`, for example
    /// `"#/properties/amount/minimum: minimum must be a number, found string \"3\""`.
    public var description: String { "\(location): \(message)" }
}
