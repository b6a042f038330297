import Glibc

/// A counter every writer of the token file advances after it replaces the file, kept in the first
/// eight bytes of the file's lock file (`http-tokens.json.lock`), which the server maps into its
/// memory: a request learns whether the tokens changed by reading eight bytes, with no system call.
///
/// The inotify watch (``FileChangeWatch``) asked the kernel on every request, and that `ioctl` was
/// the largest part of the edge's own work above the kept-work route (docs/benchmarks.md, issue 48).
/// A writer advances the counter after its `rename` and before it returns, so a request that starts
/// after `tessera token rotate` or `revoke` returned sees the new tokens: "at once" stays exact for
/// every Tessera process. The watch is still read, once per tick of the kernel's coarse clock, for a
/// file replaced by other means.
final class TokenFileGeneration: @unchecked Sendable {
    // Mapped read-only and shared: writers change it with `pwrite` through the page cache. Only
    // read inside the token store's cache lock; unmapped in deinit.
    private let mapping: UnsafeRawPointer

    /// Maps the counter of the lock file at `lockPath`, making the file (mode 0600) or extending it to
    /// eight bytes if needed; `nil` if that is not possible (then the watch is read on every request).
    init?(lockPath: String) {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) }  // the mapping outlives the descriptor
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 8 || ftruncate(fd, 8) == 0 else { return nil }
        guard let address = mmap(nil, 8, PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else { return nil }
        mapping = UnsafeRawPointer(address)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: mapping), 8) }

    /// The counter now.
    var current: UInt64 { mapping.load(as: UInt64.self) }

    /// Advances the counter of the lock file at `lockPath`. Called by a writer holding the file's
    /// lock, after the file was replaced. A failure is left to the watch, which sees the rename.
    static func advance(lockPath: String) {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var value: UInt64 = 0
        // A lock file made before the counter was kept is empty: its counter starts at 0.
        _ = withUnsafeMutableBytes(of: &value) { pread(fd, $0.baseAddress, 8, 0) }
        value &+= 1
        _ = withUnsafeBytes(of: &value) { pwrite(fd, $0.baseAddress, 8, 0) }
    }
}
