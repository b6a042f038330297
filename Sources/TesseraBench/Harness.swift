import Foundation

/// Monotonic time in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Order statistics of a set of samples.
struct Summary {
    let count: Int
    let median: Double
    let p10: Double
    let p90: Double
    let p99: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func at(_ q: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        median = at(0.5)
        p10 = at(0.1)
        p90 = at(0.9)
        p99 = at(0.99)
    }
}

/// Formats microseconds with sensible precision.
func micros(_ nanoseconds: Double) -> String { String(format: "%.1f µs", nanoseconds / 1000) }

/// Prints one result line: name, median, spread, and the target verdict.
func report(_ name: String, _ s: Summary, unit: (Double) -> String, target: String) {
    print("\(name.padding(toLength: 34, withPad: " ", startingAt: 0)) median \(unit(s.median))  (p10 \(unit(s.p10)), p90 \(unit(s.p90)), n=\(s.count))  target \(target)")
}


/// One line on standard error saying what a long benchmark is doing now (its figures go to
/// standard output), so a run that takes long shows where it is.
func progress(_ what: String) {
    FileHandle.standardError.write(Data("… \(what)\n".utf8))
}

/// The `echo` input the dispatch, isolation and C-ABI benchmarks send (191 bytes): what the
/// example plugin's `echo` and the C-ABI plugins' accept.
let echoInputJSON = #"{"id":"3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b","title":"Groceries at the market","amount":12550,"date":"2026-03-02","tags":["food","weekly","cash"],"note":"paid in cash, receipt in the drawer"}"#

/// Runs one piece of a benchmark alone on the main thread, before anything starts a thread, and
/// exits: `tessera-bench COMMAND PIECE COUNT`, for valgrind's instruction count (the difference of
/// two counts ÷ their difference is the piece's instructions per run). An error is printed and
/// exits with 2.
func runAloneForValgrind(_ command: String, defaultCount: Int, _ body: (_ piece: String, _ count: Int) throws -> Void) -> Never {
    let a = CommandLine.arguments
    do {
        try body(a.count > 2 ? a[2] : "", a.count > 3 ? Int(a[3]) ?? defaultCount : defaultCount)
    } catch {
        FileHandle.standardError.write(Data("tessera-bench \(command): \(error)\n".utf8))
        exit(2)
    }
    exit(0)
}
