import Foundation
import Synchronization
import TesseraSDK

/// A client of gpsd, the GPS daemon: connects over TCP, asks for JSON reports, and turns each
/// position report into a ``LocationFix``.
///
/// It sends `?WATCH={"enable":true,"json":true};` and reads newline-delimited JSON (see
/// ``GpsdReport`` for which reports become fixes and how). When the connection cannot be made or
/// drops, it tries again after a pause that doubles from ``minimumBackoff`` up to
/// ``maximumBackoff`` and returns to the minimum once a connection has delivered data. It runs
/// until the consuming task is cancelled (or the stream is dropped); it then stops within a
/// quarter of a second and closes its socket.
///
/// The socket is read on a thread of its own, so a quiet receiver never holds up Swift's
/// cooperative thread pool.
public struct GpsdClient: Sendable {
    /// gpsd's host, by default this machine.
    public var host: String
    /// gpsd's port, by default 2947.
    public var port: UInt16
    /// The first pause before reconnecting, seconds.
    public var minimumBackoff: TimeInterval
    /// The longest pause before reconnecting, seconds.
    public var maximumBackoff: TimeInterval
    /// Receives one line per connection event and per problem (never per report).
    public var log: @Sendable (String) -> Void

    /// Creates a client; nothing happens until ``fixes()`` or ``run(_:)``.
    public init(host: String = "127.0.0.1", port: UInt16 = 2947, minimumBackoff: TimeInterval = 0.5,
                maximumBackoff: TimeInterval = 30, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.minimumBackoff = minimumBackoff
        self.maximumBackoff = maximumBackoff
        self.log = log
    }

    /// The fixes gpsd reports, as they come. Ending the iteration (or cancelling its task) stops
    /// the client.
    public func fixes() -> AsyncStream<LocationFix> {
        let (stream, continuation) = AsyncStream.makeStream(of: LocationFix.self, bufferingPolicy: .bufferingNewest(10_000))
        let stop = Atomic<Bool>(false)
        let session = GpsdSession(client: self, yield: { continuation.yield($0) })
        let thread = Thread { session.run(until: { stop.load(ordering: .relaxed) }); continuation.finish() }
        continuation.onTermination = { _ in stop.store(true, ordering: .relaxed) }
        thread.name = "gpsd \(host):\(port)"
        thread.start()
        return stream
    }

    /// Hands every fix to `onFix` until the calling task is cancelled.
    public func run(_ onFix: (LocationFix) async -> Void) async {
        for await fix in fixes() { await onFix(fix) }
    }
}

/// One reading thread's work: connect, watch, read, reconnect, until told to stop.
private struct GpsdSession: Sendable {
    let client: GpsdClient
    let yield: @Sendable (LocationFix) -> Void

    /// How long one wait for data lasts before the stop flag is looked at again, milliseconds.
    static let pollInterval: Int32 = 250

    func run(until stopped: () -> Bool) {
        var backoff = client.minimumBackoff
        while !stopped() {
            let deliveredData = connectAndRead(until: stopped)
            if stopped() { break }
            if deliveredData { backoff = client.minimumBackoff }
            client.log("gpsd \(client.host):\(client.port): reconnecting in \(backoff) s")
            pause(backoff, until: stopped)
            backoff = min(backoff * 2, client.maximumBackoff)
        }
    }

    /// One connection's life. Returns whether it delivered any line.
    private func connectAndRead(until stopped: () -> Bool) -> Bool {
        var delivered = false
        do {
            let connection = try TCPLineConnection(host: client.host, port: client.port, timeout: 5)
            client.log("gpsd \(client.host):\(client.port): connected")
            try connection.send("?WATCH={\"enable\":true,\"json\":true};\n")
            let fallbackID = "gpsd:\(client.host):\(client.port)"
            while !stopped() {
                guard let line = try connection.readLine(milliseconds: Self.pollInterval) else { continue }
                delivered = true
                if case .fix(let fix) = GpsdReport.decode(line: line, fallbackDeviceID: fallbackID) { yield(fix) }
            }
        } catch {
            client.log("gpsd \(client.host):\(client.port): \(error)")
        }
        return delivered
    }

    /// Sleeps `seconds` in short slices, so a stop is noticed quickly.
    private func pause(_ seconds: TimeInterval, until stopped: () -> Bool) {
        let end = Date().addingTimeInterval(seconds)
        while !stopped(), Date() < end { usleep(UInt32(min(0.05, max(0, end.timeIntervalSinceNow)) * 1_000_000)) }
    }
}
