import Synchronization

/// A request's id, as its access line and its `X-Request-Id` show it: this process's prefix and a
/// count in hexadecimal, `3fa2c1-1f`.
///
/// Short enough for a person to read out to the operator, and for Swift to keep the text inline
/// (up to 15 bytes: the prefix's 6, the dash, and a count below 2³² — four billion requests
/// of one process) with no allocation. Hummingbird's own id is 32 hexadecimal digits, made with
/// four allocations each time it is written out, and the edge writes one for every response
/// (docs/benchmarks.md, "The edge's request id, …").
struct EdgeRequestID: CustomStringConvertible, Sendable {
    /// Which request of this process it is, from 1.
    let number: UInt64

    /// The next id of this process.
    static func next() -> EdgeRequestID {
        EdgeRequestID(number: counter.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    var description: String {
        var text = Self.prefix
        text.append("-")
        text.append(String(number, radix: 16))
        return text
    }

    private static let counter = Atomic<UInt64>(0)
    /// Tells this process's ids from another's (a restarted host counts from 1 again).
    private static let prefix: String = {
        let digits = String(UInt32.random(in: 0..<(1 << 24)), radix: 16)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }()
}
