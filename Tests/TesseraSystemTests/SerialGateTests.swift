import Synchronization
import Testing
import TesseraSystem

/// The async lock: one caller inside at a time, across its awaits.
@Suite struct SerialGateTests {
    @Test func callersNeverOverlapAcrossTheirAwaits() async {
        let gate = SerialGate()
        let trace = Trace()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                group.addTask {
                    await gate.run {
                        trace.lines.withLock { $0.append("in \(i)") }
                        await Task.yield()  // another caller would get in here without the gate
                        trace.lines.withLock { $0.append("out \(i)") }
                    }
                }
            }
        }
        let lines = trace.lines.withLock { $0 }
        #expect(lines.count == 80)
        for pair in stride(from: 0, to: lines.count, by: 2) {
            #expect(lines[pair].dropFirst(3) == lines[pair + 1].dropFirst(4), "\(lines[pair]) then \(lines[pair + 1])")
        }
    }
}

final class Trace: Sendable {
    let lines = Mutex<[String]>([])
}
