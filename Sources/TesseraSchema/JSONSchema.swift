import TesseraSDK

/// A compiled JSON Schema (a subset of draft 2020-12, plus OpenAPI 3.0's `nullable`), ready to
/// validate instances.
///
/// The host validates plugin manifests and deployment files against the schemas shipped in the
/// repository, and every operation's JSON input against the operation's input schema before plugin
/// code sees it. Compile a schema once and keep it: compiling checks every keyword, compiles each
/// regular expression and resolves each `$ref`, so that ``validate(_:)`` only walks the instance.
///
/// ```swift
/// let schema = try JSONSchema(parsing: """
///     {"type": "object", "required": ["amount"],
///      "properties": {"amount": {"type": "integer", "minimum": 1}}}
///     """)
/// schema.validate(["amount": "12"]).map(\.message)
/// // ["$.amount: expected integer, found string \"12\""]
/// ```
///
/// Keywords the compiler does not know are refused with a ``SchemaError`` rather than ignored, so
/// a schema author never believes a rule is enforced when it is not. `docs/json-schema.md` lists
/// the supported keywords.
///
/// A `JSONSchema` is immutable and may be shared between threads and tasks.
public struct JSONSchema: Sendable {
    /// The schema document this was compiled from.
    public let source: JSONValue
    /// The compiled schemas; index 0 is the document itself.
    let nodes: [CompiledNode]

    /// Compiles a schema.
    ///
    /// Refuses unsupported keywords, keyword values of the wrong type (such as `"minimum": "3"` or
    /// `"required": "a"`), patterns that are not valid regular expressions, `$ref`s that do not
    /// resolve within the document and `$ref` cycles that would never end, with a ``SchemaError``
    /// naming the schema location, such as `"#/properties/amount/minimum"`.
    ///
    /// - Parameter schema: The schema document: an object, or `true` or `false`.
    /// - Parameter patterns: When the `pattern`s and `patternProperties` are compiled; with
    ///   ``PatternCompilation/whenFirstUsed`` an invalid one is not refused here.
    public init(_ schema: JSONValue, patterns: PatternCompilation = .whenCompiled) throws(SchemaError) {
        let compiler = Compiler(root: schema, patterns: patterns)
        try compiler.compileDocument()
        self.source = schema
        self.nodes = compiler.nodes.map(CompiledNode.init)
    }

    /// Parses a schema from JSON text, then compiles it as ``init(_:)`` does.
    ///
    /// - Parameter text: The schema as JSON text.
    /// - Throws: `JSONParseError` when the text is not JSON, ``SchemaError`` when it is not a
    ///   schema this compiler accepts.
    public init(parsing text: String, patterns: PatternCompilation = .whenCompiled) throws {
        try self.init(try JSONValue(parsing: text), patterns: patterns)
    }

    /// Every way in which `instance` does not satisfy this schema, empty when it is valid.
    ///
    /// Violations are in document order of the instance: a value's own violations before its
    /// members', members by name, items by index. A valid instance costs one pass that builds no
    /// paths or messages; only an invalid one is walked a second time to describe what is wrong.
    ///
    /// Data nested more than 512 levels deep, or deeply enough that checking it would take more
    /// than 2 MiB of stack, is refused with a violation whose keyword is `"depth"`, rather than
    /// risking the thread's stack.
    ///
    /// - Parameter instance: The JSON value to check.
    /// - Returns: The violations, each naming the JSON path, the keyword, what was expected and
    ///   what was found.
    public func validate(_ instance: JSONValue) -> [SchemaViolation] {
        if isValid(instance) { return [] }
        var validator = Validator(nodes: nodes, tracking: true)
        _ = validator.validate(0, instance)
        return Validator.ordered(validator.recorded).map(\.violation)
    }

    /// Whether `instance` satisfies this schema: the same answer as `validate(instance).isEmpty`,
    /// faster, because it stops at the first violation and describes none.
    ///
    /// - Parameter instance: The JSON value to check.
    public func isValid(_ instance: JSONValue) -> Bool {
        var validator = Validator(nodes: nodes, tracking: false)
        return validator.validate(0, instance)
    }
}

/// When a schema's regular expressions (`pattern`, `patternProperties`) are compiled.
public enum PatternCompilation: Sendable {
    /// With the schema, each one checked: an invalid pattern refuses the schema. For schemas
    /// others write (a plugin's operations and config).
    case whenCompiled
    /// Each one the first time a value reaches it. For the host's own schemas, whose tests compile
    /// every pattern: a document meets few of them, and compiling one costs ICU tens of microseconds.
    case whenFirstUsed
    /// With the schema, each one checked as with ``whenCompiled``, then let go (compiled again at
    /// its first match), and not kept for other schemas: for a schema compiled only to check it.
    case checkedOnly
}
