import Glibc
import TesseraSystem

/// Tells whether anything in a folder may have changed since the last look, without touching the
/// file system: an inotify watch on the folder, read without blocking.
///
/// The token store used to `stat` its file on every request to notice a token rotated by another
/// process; the kernel's path walk for that was 2% of a no-op call's CPU time. The kernel queues an
/// inotify event before the writer's `rename` returns, so a request that starts after the rename
/// sees it: "at once" stays exact. Where inotify is unavailable every look says "maybe", and the
/// caller goes back to comparing the file's identity.
final class FileChangeWatch: @unchecked Sendable {
    // The descriptor is only read by `changed()`, which the caller serialises (TokenStore calls it
    // inside its cache lock), and closed in deinit.
    private let descriptor: Int32

    /// Watches `folder` for files written, moved, created, deleted or changed in mode.
    init(folder: String) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB
                          | IN_DELETE_SELF | IN_MOVE_SELF)
        if fd >= 0, inotify_add_watch(fd, folder, mask) < 0 {
            close(fd)
            descriptor = -1
        } else {
            descriptor = fd
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Whether something may have changed since the last call (and drains what the kernel queued).
    /// `true` when watching is not possible, or the kernel's queue overflowed.
    func changed() -> Bool {
        guard descriptor >= 0 else { return true }
        // This runs on every request, and nearly always finds nothing queued: asking how many
        // bytes wait (`FIONREAD`) is the cheaper system call of the two (300 against 460 ns a call
        // on this machine, docs/benchmarks.md); the queue is read only when it holds something.
        var queued: Int32 = 0
        if ioctl(descriptor, UInt(FIONREAD), &queued) == 0, queued == 0 { return false }
        // The buffer is on the stack, not a fresh array each time.
        return withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            var changed = false
            while true {
                let count = SystemCall.retryingInterrupted { read(descriptor, buffer.baseAddress, buffer.count) }
                if count > 0 { changed = true; continue }
                let error = errno
                // EAGAIN: nothing (more) queued. Any other error: be safe and look at the file.
                return changed || (count < 0 && error != EAGAIN)
            }
        }
    }
}
