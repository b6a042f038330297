import Glibc

/// Opening a plugin library without anything that can block (issue 43): `open` of a FIFO waits
/// for a writer, so every open of a library the operator named goes through here. The file is
/// opened non-blocking, examined with `fstat`, and kept only if it is a regular file; then it is
/// switched back to blocking reads (which a regular file never waits on anyway).
enum RegularFile {
    /// Why a path is not a library file, in words; `nil` for a regular file.
    static func refusal(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "it is a directory, not a file"
        case S_IFIFO: "it is a named pipe (FIFO), not a file"
        case S_IFSOCK: "it is a socket, not a file"
        case S_IFCHR, S_IFBLK: "it is a device, not a file"
        default: "it is not a regular file"
        }
    }

    /// A descriptor of the regular file at `path` (the caller closes it) and its `fstat`; or the
    /// reason it cannot be one, with the `errno` where there was one.
    static func open(_ path: String) -> Result<(descriptor: Int32, info: stat), FileReadError> {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            // A socket cannot be opened at all (ENXIO): say what it is rather than the errno.
            var info = stat()
            if lstat(path, &info) == 0, let reason = refusal(mode: info.st_mode) {
                return .failure(FileReadError(path: path, reason: "cannot read: \(reason)", code: code))
            }
            return .failure(FileReadError(path: path, operation: "cannot open", code: code))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            return .failure(FileReadError(path: path, operation: "cannot examine", code: code))
        }
        if let reason = refusal(mode: info.st_mode) {
            close(fd)
            return .failure(FileReadError(path: path, reason: "cannot read: \(reason)"))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success((fd, info))
    }
}
