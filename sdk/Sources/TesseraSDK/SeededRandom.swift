/// A small random generator whose draws depend only on its seed (SplitMix64, Steele, Lea and
/// Flood, 2014): for choices a plugin must be able to repeat — a question picked for a day, the
/// same input in every run of a test or a benchmark.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let pick = questions.randomElement(using: &random)
/// ```
///
/// Not for secrets: its output is predictable from the seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state; each draw advances it.
    public var state: UInt64

    /// A generator that starts at `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
