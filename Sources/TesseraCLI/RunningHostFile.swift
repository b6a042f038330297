import Foundation
import TesseraSDK

/// How a command finds the host that serves a data directory (issue 46): `tessera serve` holds a
/// lock on `<data>/host.lock` for as long as it runs (the kernel drops it when the process ends,
/// however it ends) and writes `<data>/host.json` — its pid and the URL it listens on — once it
/// listens. A second `serve` on the same data is refused; `plugins list` and `plugins why` ask the
/// running host instead of starting plugins of their own against its live data; `plugins swap`
/// and `restart` find its URL even when `--port` overrode the deployment's.
struct RunningHostFile {
    /// What a running host says of itself.
    struct Announcement: Equatable {
        var pid: Int32
        var url: String
    }

    let dataDirectory: String
    var lockPath: String { dataDirectory + "/host.lock" }
    var announcementPath: String { dataDirectory + "/host.json" }

    /// The lock this process holds while it serves; the descriptor stays open until the process ends.
    struct Held { let fd: Int32 }

    /// Takes the data directory for this process, or says which host has it.
    /// - Throws: `CLIError` `hostRunning` naming the other host's pid and URL.
    func claim() throws -> Held {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CLIError(code: .failure, message: "cannot open \(lockPath): errno \(errno)") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            let other = announcement().map { " (pid \($0.pid), \($0.url))" } ?? ""
            throw CLIError(code: .hostRunning, message: "another host\(other) already serves the data directory \(dataDirectory): stop it first, or give this one another --data")
        }
        try? FileManager.default.removeItem(atPath: announcementPath)  // a host killed before it could remove its own
        return Held(fd: fd)
    }

    /// Says where this process listens, for the commands that look for it.
    func announce(pid: Int32, url: String) throws {
        let json = JSONValue.object(["pid": .integer(Int64(pid)), "url": .string(url)]).serialized()
        try Data(json.utf8).write(to: URL(fileURLWithPath: announcementPath), options: .atomic)
    }

    /// Removes the announcement at a clean stop (the lock goes with the process).
    func withdraw() {
        try? FileManager.default.removeItem(atPath: announcementPath)
    }

    /// The host serving this data directory, or nil when none does: the lock is free (a stale
    /// announcement of a killed host does not count).
    func running() -> Announcement? {
        let fd = open(lockPath, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return nil
        }
        return announcement() ?? Announcement(pid: 0, url: "")
    }

    private func announcement() -> Announcement? {
        guard let data = FileManager.default.contents(atPath: announcementPath), let json = try? JSONValue(parsing: Array(data)),
              let pid = json["pid"]?.integerValue, let url = json["url"]?.stringValue else { return nil }
        return Announcement(pid: Int32(pid), url: url)
    }
}
