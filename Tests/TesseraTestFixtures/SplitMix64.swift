import TesseraSDK

/// The SDK's seeded generator, so randomised tests pick the same values on every run.
public typealias SplitMix64 = TesseraSDK.SplitMix64
