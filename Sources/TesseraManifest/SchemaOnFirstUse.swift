import Synchronization
import TesseraSDK
import TesseraSchema

/// A manifest's schema (an operation's input, the config), compiled when the manifest is read or
/// when it is first used.
///
/// A manifest whose bytes this very host build checked and compiled before (``CheckedManifests``)
/// is not compiled again when it is read: each of its schemas is compiled by the first call that
/// validates against it, once, and kept. Compiling one costs tens of microseconds, and a restart
/// or a `tessera call` uses one or two of a plugin's dozen.
final class SchemaOnFirstUse: Sendable {
    /// The compiled schema, or the document to compile on first use.
    private let state: Mutex<State>

    private enum State {
        case compiled(JSONSchema)
        case deferred(JSONValue)
    }

    /// A schema compiled already.
    init(compiled schema: JSONSchema) {
        state = Mutex(.compiled(schema))
    }

    /// A schema to compile when first used: one that compiled when the same bytes were read before.
    init(deferred document: JSONValue) {
        state = Mutex(.deferred(document))
    }

    /// The compiled schema, compiled now if this is its first use.
    var schema: JSONSchema {
        state.withLock { state in
            switch state {
            case .compiled(let schema):
                return schema
            case .deferred(let document):
                let schema = Self.compile(document)
                state = .compiled(schema)
                return schema
            }
        }
    }

    /// Compiles a schema the same build compiled before. It cannot fail unless the record that
    /// said so is not the host's own (``CheckedManifests``): then nothing passes it, rather than
    /// everything.
    private static func compile(_ document: JSONValue) -> JSONSchema {
        if let schema = try? JSONSchema(document) { return schema }
        return refusingEverything
    }

    /// The schema `false`: every instance is refused.
    private static let refusingEverything: JSONSchema = {
        guard let schema = try? JSONSchema(.bool(false)) else { preconditionFailure("the schema false compiles") }
        return schema
    }()
}
