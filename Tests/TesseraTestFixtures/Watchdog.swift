import Testing

extension Trait where Self == TimeLimitTrait {
    /// A watchdog against a hang, not a bound on speed.
    ///
    /// Swift Testing starts every test of the run at once, so on two cores a test that takes a
    /// second alone can take as long as the whole suite (about five minutes in CI) before it ends.
    /// Any limit below that fails healthy tests at random; this one fails only a test that hangs,
    /// and still well inside CI's budget. Speed is shown by the benchmarks, never by a time limit.
    public static var hangWatchdog: Self { .timeLimit(.minutes(15)) }
}
