import Foundation
import Synchronization

/// What a wake-up costs on this machine: how much longer a round trip between two threads over a
/// socket takes when each sleeps in its read than when each spins on it, halved (a round trip has
/// two wake-ups). It sets how long the host polls before it sleeps (``BusyPolling/measured``;
/// docs/isolation.md, "How long a wait polls").
///
/// That is the classic rule for spinning before blocking: spin for as long as blocking would
/// cost. A poll that pays saved a wake-up; one that runs out has cost at most one wake-up's worth
/// more than sleeping at once would. A fixed window cannot be right on every machine: the 50 µs
/// tuned where a wake-up cost 63–75 µs is three to fifteen wake-ups' worth of spinning where one
/// costs 3–17 µs (2026-12-02).
public enum WakeUpCost {
    /// This process's reading (``WakeUpCostReading``): measured in the background when first asked
    /// for, and again once a minute old.
    public static let shared = WakeUpCostReading(measure: { measure() })

    /// The cost as this process last measured it (``WakeUpCostReading/current()``).
    public static var measured: Duration { shared.current() }

    /// No wait polls longer than this, whatever the measurement says.
    public static let ceiling: Duration = .microseconds(100)

    /// Half the difference between the median round trip with both threads sleeping in `recv` and
    /// with both spinning on it, over `roundTrips` of each (a few milliseconds in all); zero on one
    /// core (spinning cannot pay there) or when the socket cannot be made, and at most ``ceiling``.
    public static func measure(roundTrips: Int = 200) -> Duration {
        guard ProcessInfo.processInfo.activeProcessorCount > 1 else { return .zero }
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return .zero }
        defer { close(fds[0]); close(fds[1]) }
        let slept = median(pingPong(fds, roundTrips, spinning: false))
        let spun = median(pingPong(fds, roundTrips, spinning: true))
        let nanoseconds = slept > spun ? (slept - spun) / 2 : 0
        return min(.nanoseconds(Int64(nanoseconds)), ceiling)
    }

    /// Round trips of one byte from `fds[0]` to a thread echoing it on `fds[1]`, in nanoseconds each.
    private static func pingPong(_ fds: [Int32], _ count: Int, spinning: Bool) -> [UInt64] {
        let done = DispatchSemaphore(value: 0)
        let echo = Thread {
            for _ in 0..<count {
                guard var byte = receiveByte(fds[1], spinning: spinning), send(fds[1], &byte, 1, 0) == 1 else { break }
            }
            done.signal()
        }
        echo.start()
        var times: [UInt64] = []
        times.reserveCapacity(count)
        for _ in 0..<count {
            var byte: UInt8 = 1
            let start = DispatchTime.now().uptimeNanoseconds
            guard send(fds[0], &byte, 1, 0) == 1, receiveByte(fds[0], spinning: spinning) != nil else { break }
            times.append(DispatchTime.now().uptimeNanoseconds - start)
        }
        // Cut short (the socket broke): the echoing thread must not wait on for a byte.
        if times.count < count { shutdown(fds[0], Int32(SHUT_RDWR)) }
        done.wait()
        return times
    }

    /// One byte from `fd`: spinning on a read that does not wait (for at most a millisecond, then
    /// asleep: on a machine whose other core is taken the other thread may not run while this one
    /// spins), or asleep in it at once. `nil` if the socket ended or broke.
    private static func receiveByte(_ fd: Int32, spinning: Bool) -> UInt8? {
        var byte: UInt8 = 0
        if spinning {
            let giveUp = DispatchTime.now().uptimeNanoseconds + 1_000_000
            while DispatchTime.now().uptimeNanoseconds < giveUp {
                let got = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
                if got == 1 { return byte }
                if got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return nil }
            }
        }
        while true {
            let got = recv(fd, &byte, 1, 0)
            if got == 1 { return byte }
            if got < 0, errno == EINTR { continue }
            return nil
        }
    }

    private static func median(_ values: [UInt64]) -> UInt64 {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }
}

/// A wake-up's cost as last measured, measured in the background when first asked for and again
/// once it is ``refreshAfter`` old: a machine's load changes, and a reading made at a busy moment
/// (a host starting its children at once) reads low, so that its window would stay short for as
/// long as the host runs. Asking costs an atomic load and a read of the monotonic clock; the one
/// thread that finds the reading missing or old starts the measurement and goes on with what
/// there is.
public final class WakeUpCostReading: Sendable {
    /// How old a reading may grow before it is measured again.
    public static let refreshAfter: Duration = .seconds(60)

    private let measure: @Sendable () -> Duration
    private let milliseconds: @Sendable () -> UInt64
    private let inBackground: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// Whether a measurement in the background runs now.
    private let measuring = Atomic<Bool>(false)
    /// The last reading: when it was made (milliseconds of the monotonic clock) shifted left by
    /// ``nanosecondBits``, and the cost in nanoseconds in the low bits; 0 before the first.
    private let reading = Atomic<UInt64>(0)
    private static let nanosecondBits: UInt64 = 24

    /// A reading that measures with `measure` (its value capped at 2²⁴ ns, 16 ms), timed by
    /// `milliseconds`, measuring again through `inBackground` (tests: a clock and a runner of
    /// their own).
    public init(measure: @escaping @Sendable () -> Duration,
                milliseconds: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds / 1_000_000 },
                inBackground: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { Thread.detachNewThread($0) }) {
        self.measure = measure
        self.milliseconds = milliseconds
        self.inBackground = inBackground
    }

    /// The last measured cost, zero before the first measurement is done. A call that finds none,
    /// or one ``refreshAfter`` old, starts a measurement on a thread of its own (one at a time)
    /// and returns what there is: no caller waits the few milliseconds a measurement takes, and
    /// until the first is done no wait polls.
    public func current() -> Duration {
        let last = reading.load(ordering: .acquiring)
        let old = last == 0 || milliseconds() &- (last >> Self.nanosecondBits) >= UInt64(Self.refreshAfter.nanoseconds / 1_000_000)
        if old, measuring.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            inBackground { [self] in
                record(measure())
                measuring.store(false, ordering: .releasing)
            }
        }
        return .nanoseconds(Int64(last & (1 << Self.nanosecondBits - 1)))
    }

    /// Measures now, on the calling thread, and keeps the reading: what a host that has run for a
    /// minute would have (`tessera-bench isolation`, so that its hosts are measured as they run
    /// after their start, not while they start).
    public func refresh() { record(measure()) }

    private func record(_ cost: Duration) {
        let nanoseconds = UInt64(min(max(cost.nanoseconds, 0), Int64(1 << Self.nanosecondBits - 1)))
        reading.store(max(milliseconds(), 1) << Self.nanosecondBits | nanoseconds, ordering: .releasing)
    }
}
