import Foundation

/// Writes the host's log lines to a file descriptor: a warning or an error at once, a line of
/// less weight (the access line each request writes at info, a plugin's info) within a couple of
/// milliseconds, with the lines that came meanwhile, in one `write`.
///
/// `tessera serve` logs at info, so every request writes its access line. Made and written with a
/// `write` per line on the thread that answers the request, the line cost 3.9–10.1 µs a call in
/// process, written to a pipe another thread reads as a service manager's journal does: more
/// than the rest of the edge's own work (`tessera-bench edge`, docs/benchmarks.md, "The access
/// line"). A thread of this writer's own writes the lines in batches instead.
///
/// Order is kept: batches are written in the order their lines came, and a line written at once
/// first writes every line before it. What a crash loses is what the last couple of milliseconds
/// wrote at info; a warning or an error is on the descriptor before the call that wrote it
/// returns. The process's normal exit writes what is left (`atexit`), and so does
/// ``flush()``, which the CLI calls before it ends the process by other means.
final class LogLineWriter: @unchecked Sendable {
    /// The process's standard error: where the host's log goes (``HostLog/standardError(level:format:)``).
    static let standardError: LogLineWriter = {
        let writer = LogLineWriter(descriptor: STDERR_FILENO)
        atexit { LogLineWriter.standardError.flush() }
        return writer
    }()

    /// How long the writing thread lets lines gather once one is there.
    static let gathering: TimeInterval = 0.002
    /// A batch this large is written without waiting for the rest of ``gathering``.
    static let batchBytes = 64 * 1024
    /// Lines held beyond this are written by the thread that adds to them: a descriptor nobody
    /// reads (a full pipe) then holds the writers back, as a `write` per line did, rather than
    /// the host's memory growing.
    static let mostHeldBytes = 1 << 20

    /// The descriptor lines go to.
    let descriptor: Int32
    /// Guards the fields below; the writing thread waits on it.
    private let condition = NSCondition()
    /// Held while a batch is taken and written, so that batches reach the descriptor in order.
    private let writing = NSLock()
    private var held: [UInt8] = []
    private var threadStarted = false
    /// The writing thread waits for a first line, and only then is woken by one.
    private var threadIdle = false

    /// A writer to `descriptor`, which it never closes.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `line` (its line break included): at once when `atOnce`, else with the next batch.
    func write(_ line: String, atOnce: Bool) {
        guard !atOnce else {
            writeHeld(then: line)
            return
        }
        condition.lock()
        var line = line
        line.withUTF8 { held.append(contentsOf: $0) }
        let size = held.count
        if !threadStarted {
            threadStarted = true
            startThread()
        }
        if threadIdle || size >= Self.batchBytes { condition.signal() }
        condition.unlock()
        if size > Self.mostHeldBytes { writeHeld(then: nil) }
    }

    /// Writes every line held, before returning.
    func flush() {
        writeHeld(then: nil)
    }

    /// Takes what is held, and writes it followed by `line`.
    private func writeHeld(then line: String?) {
        writing.lock()
        defer { writing.unlock() }
        condition.lock()
        var batch = held
        held = []
        condition.unlock()
        if var line { line.withUTF8 { batch.append(contentsOf: $0) } }
        writeAll(batch)
    }

    private func startThread() {
        let thread = Thread { [self] in runThread() }
        thread.name = "tessera-log"
        thread.start()
    }

    /// The writing thread: waits for a line, lets others gather for ``gathering``, writes them.
    private func runThread() {
        while true {
            condition.lock()
            while held.isEmpty {
                threadIdle = true
                condition.wait()
                threadIdle = false
            }
            if held.count < Self.batchBytes { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.gathering)) }
            condition.unlock()
            writeHeld(then: nil)
        }
    }

    /// `write` until every byte is out; a descriptor that refuses (closed) loses the lines, as
    /// `FileHandle`'s write did.
    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
