import Foundation
import TesseraSDK
import TesseraSchema

/// Reads a JSON file and checks it against a schema, with errors that name the file and path.
enum JSONDocument {
    static func read(file: String) throws(ManifestError) -> JSONValue {
        try parse(contents(of: file), file: file)
    }

    /// The bytes of `file`.
    static func contents(of file: String) throws(ManifestError) -> Data {
        guard let data = FileManager.default.contents(atPath: file) else {
            let reason = FileManager.default.fileExists(atPath: file) ? "an unreadable file" : "no such file"
            throw ManifestError(file: file, path: "$", expected: "a readable JSON file", found: reason)
        }
        return data
    }

    /// The JSON of `data`, read from `file` (named in errors).
    static func parse(_ data: Data, file: String) throws(ManifestError) -> JSONValue {
        do {
            return try JSONValue(parsing: data)
        } catch {
            throw ManifestError(file: file, path: "$", expected: "JSON", found: error.description)
        }
    }

    /// The first violation of `schema`, as a ManifestError.
    static func check(_ document: JSONValue, against schema: JSONSchema, file: String) throws(ManifestError) {
        let violations = schema.validate(document)
        if let first = violations.first {
            var error = ManifestError(file: file, violation: first)
            error.more = violations.dropFirst().prefix(9).map { "\($0.path): expected \($0.expected), found \($0.found)" }
            throw error
        }
    }

    /// Compiles an embedded schema; a failure is a bug in this repository, not in the user's file.
    /// Its patterns are compiled when first used (each costs ICU tens of microseconds, and a file
    /// meets few of them); `ManifestTests.everyPatternOfTheHostsOwnSchemasCompiles` compiles each.
    static func compile(_ text: String) -> JSONSchema {
        do {
            return try JSONSchema(parsing: text, patterns: .whenFirstUsed)
        } catch {
            fatalError("embedded schema does not compile: \(error)")
        }
    }
}
