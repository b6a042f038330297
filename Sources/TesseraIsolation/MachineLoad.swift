import Foundation
import Synchronization

/// Whether the machine has a core free for the thread a poller waits on (issue 48: polling decides
/// from "cores free" as well as from whether its last polls paid; docs/isolation.md, "Polling that
/// pays or stays off").
///
/// A poll pays only when the other end computes the answer while this thread spins, so both must
/// be on a CPU at once. When more threads are runnable than the machine has cores, the other end
/// waits for a core — often the very one this thread is spinning on — and the window is burnt for
/// nothing. The kernel counts the runnable threads of the whole machine (`/proc/loadavg`, the
/// fourth field: "runnable/total"); the count includes the thread reading it. It is read at most
/// once per ``refresh`` per process, so a wait costs an atomic load.
///
/// Where the count cannot be read, every core counts as free: the payoff rule alone decides.
public final class MachineLoad: Sendable {
    /// How long one reading stands for.
    public static let refresh: Duration = .milliseconds(10)
    private static let refreshMilliseconds = UInt64(refresh.nanoseconds / 1_000_000)

    /// The machine's own count, against the cores this process may run on.
    public static let system = MachineLoad(cores: ProcessInfo.processInfo.activeProcessorCount, runnable: MachineLoad.runnableNow)

    /// A load that never takes polling away (tests of the payoff rule and of the window).
    public static let ignored = MachineLoad(cores: Int.max) { nil }

    private let cores: Int
    private let runnable: @Sendable () -> Int?
    /// Milliseconds of a monotonic clock.
    private let milliseconds: @Sendable () -> UInt64
    /// The last reading: when it was made (milliseconds of the monotonic clock, shifted left by
    /// ``countBits``) and, in the low bits, the runnable threads counted then (0 when unknown).
    /// 0 before the first.
    private let reading = Atomic<UInt64>(0)
    private static let countBits: UInt64 = 20

    /// A load read by `runnable` (the runnable threads, `nil` when unknown), against `cores`.
    public convenience init(cores: Int, runnable: @escaping @Sendable () -> Int?) {
        self.init(cores: cores, runnable: runnable) { DispatchTime.now().uptimeNanoseconds / 1_000_000 }
    }

    /// A load read by `runnable`, its readings timed by `milliseconds` (tests: a clock of their own).
    init(cores: Int, runnable: @escaping @Sendable () -> Int?, milliseconds: @escaping @Sendable () -> UInt64) {
        self.cores = max(1, cores)
        self.runnable = runnable
        self.milliseconds = milliseconds
    }

    /// Whether no more threads are runnable than there are cores (counting the caller's own) with
    /// `spare` cores left over besides, by a reading at most ``refresh`` old. The host's caller
    /// asks with none spare: it needs only the child on a core while it polls. The child's loop
    /// asks with one: while it spins between two calls, the host needs a core for more than the
    /// thread that will call (docs/isolation.md, "Polling that pays or stays off").
    public func hasFreeCore(besides spare: Int = 0) -> Bool {
        let now = milliseconds()
        var last = reading.load(ordering: .relaxed)
        if last == 0 || now &- (last >> Self.countBits) >= Self.refreshMilliseconds {
            let count = UInt64(min(max(runnable() ?? 0, 0), 1 << Self.countBits - 1))
            last = max(now, 1) << Self.countBits | count
            reading.store(last, ordering: .relaxed)
        }
        let count = Int(last & (1 << Self.countBits - 1))
        return count + spare <= cores
    }

    /// The runnable threads of the machine, from `/proc/loadavg` ("0.52 0.58 0.59 3/611 12345").
    static func runnableNow() -> Int? {
        let fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return runnable(inLoadavg: buffer[..<count])
    }

    /// The fourth field's first number in a `/proc/loadavg` text.
    static func runnable(inLoadavg text: some Collection<UInt8>) -> Int? {
        let fields = text.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")) else { return nil }
        return Int(String(decoding: fields[3][..<slash], as: UTF8.self))
    }
}
