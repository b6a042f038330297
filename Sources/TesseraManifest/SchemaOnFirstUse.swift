import Synchronization
import TesseraSDK
import TesseraSchema

/// A manifest's schema (an operation's input, the config), compiled when the manifest is read or
/// when it is first used.
///
/// An operation's input schema is compiled by the first call that validates against it, once, and
/// kept; reading a manifest whose bytes this host build has not checked before compiles it too,
/// but only to check it (``CheckedManifests``). Compiling one costs tens of microseconds, a restart
/// or a `tessera call` uses one or two of a plugin's dozen, and a server holds only the compiled
/// schemas of the operations it was asked for. A config schema, used as the plugin starts, is
/// compiled at once unless its manifest passed before.
final class SchemaOnFirstUse: Sendable {
    /// The schema once compiled (the address of a retained ``Compiled``, 0 before): read without a
    /// lock, since every call that validates reads it. A plain atomic word rather than
    /// `AtomicLazyReference`, whose `load()` this toolchain calls as an unspecialised generic
    /// function: 70 ns of a call's 10 µs through the edge, in process (docs/benchmarks.md,
    /// eighteenth pass).
    private let compiled = Atomic<UInt>(0)
    /// The document, compiled on first use; `nil` for a schema compiled at once.
    private let document: JSONValue?

    /// A compiled schema in a box, for ``compiled``.
    private final class Compiled: Sendable {
        let schema: JSONSchema
        init(_ schema: JSONSchema) { self.schema = schema }
    }

    /// A schema compiled already.
    init(compiled schema: JSONSchema) {
        document = nil
        _ = keep(Compiled(schema))
    }

    /// A schema to compile when first used: one that compiled when the same bytes were read before.
    init(deferred document: JSONValue) {
        self.document = document
    }

    /// The compiled schema, compiled now if this is its first use. Two first uses at once may both
    /// compile it; the first one kept is the one every later call gets.
    var schema: JSONSchema {
        if let done = Self.compiled(at: compiled.load(ordering: .acquiring)) { return done.schema }
        return keep(Compiled(Self.compile(document ?? .bool(false)))).schema
    }

    /// Whether the schema is compiled yet (for tests: a manifest read holds none of its input
    /// schemas compiled until a call uses one).
    var isCompiled: Bool { compiled.load(ordering: .acquiring) != 0 }

    /// Keeps `candidate` unless another was kept first; returns the one kept.
    private func keep(_ candidate: Compiled) -> Compiled {
        let retained = UInt(bitPattern: Unmanaged.passRetained(candidate).toOpaque())
        let (stored, existing) = compiled.compareExchange(expected: 0, desired: retained,
                                                          successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring)
        if stored { return candidate }
        Unmanaged.passUnretained(candidate).release()  // the retain taken for the exchange
        // The exchange failed only because a schema was kept already.
        guard let kept = Self.compiled(at: existing) else { preconditionFailure("a failed exchange from 0 found 0") }
        return kept
    }

    /// The schema kept at `address` (0: none), not retained again.
    private static func compiled(at address: UInt) -> Compiled? {
        UnsafeRawPointer(bitPattern: address).map { Unmanaged<Compiled>.fromOpaque($0).takeUnretainedValue() }
    }

    deinit {
        if let address = UnsafeRawPointer(bitPattern: compiled.load(ordering: .acquiring)) {
            Unmanaged<Compiled>.fromOpaque(address).release()
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
