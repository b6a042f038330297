#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The host's one place that loops on `EINTR`: a system call a signal interrupted before it did
/// anything is simply made again (signal(7)). Modelled on swift-nio's `syscall(blocking:)`.
///
/// Why one place: the host takes over signals (SIGTERM, SIGHUP, SIGCHLD for the process tier), so
/// any blocking call may return -1 with `EINTR`, and the loops that handled it were written 28
/// times in 13 files, each slightly differently.
public enum SystemCall {
    /// Runs `call` — a system call that returns -1 and sets `errno` on failure — again while it
    /// fails with `EINTR`. Its last result, with `errno` as that call left it, so the caller can
    /// still tell `EAGAIN` or `EXDEV` apart.
    @inlinable
    public static func retryingInterrupted<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    /// Writes every byte of `bytes` to `fd`, through short and interrupted writes.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, what: @autoclosure () -> String = "write") throws(SystemCallError) {
        var done = 0
        while done < bytes.count {
            let n = retryingInterrupted { write(fd, bytes.baseAddress! + done, bytes.count - done) }
            guard n > 0 else { throw SystemCallError(what(), errno: n == 0 ? EIO : errno) }
            done += n
        }
    }

    /// Reads from `fd` at `offset` until `buffer` is full or the file ends; how many bytes it read.
    public static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64,
                                 what: @autoclosure () -> String = "read") throws(SystemCallError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = retryingInterrupted { pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done)) }
            guard n >= 0 else { throw SystemCallError(what(), errno: errno) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Reads what `fd` has, up to `buffer.count` bytes; 0 at the end of the file.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, what: @autoclosure () -> String = "read") throws(SystemCallError) -> Int {
        let n = retryingInterrupted { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        guard n >= 0 else { throw SystemCallError(what(), errno: errno) }
        return n
    }
}

/// A system call that failed: what was being done, and `errno`.
public struct SystemCallError: Error, CustomStringConvertible, Sendable {
    /// What the call was for (`"write /var/lib/tessera/x"`).
    public let what: String
    /// The `errno` it failed with.
    public let errno: Int32

    public init(_ what: String, errno: Int32) {
        self.what = what
        self.errno = errno
    }

    public var description: String { "\(what): \(String(cString: strerror(errno)))" }
}
