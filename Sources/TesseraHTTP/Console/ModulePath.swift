import Foundation
import Glibc

/// Finds the file a `/ui/<id>/…` request names inside a module's UI folder — and only inside it.
///
/// Two checks, so that neither alone has to be perfect:
/// 1. every path component is percent-decoded once and must be a plain name: not empty (except a
///    trailing slash, which means `index.html`), not `.` or `..`, not hidden (`.git`), with no `/`,
///    `\` or NUL after decoding (`%2e%2e`, `..%2f` are refused);
/// 2. the resolved file (symbolic links followed) must lie under the resolved folder and be a
///    regular file, so a link pointing out of the folder is refused too.
/// Any refusal is a plain 404, the same as a file that does not exist.
enum ModulePath {
    /// The largest file served: module pages are small, and the whole file is read into memory.
    static let maxFileBytes = 8 << 20

    /// The file's contents and name, or `nil` when the path names nothing servable.
    static func read(folder: String, relativePath: Substring) -> (bytes: [UInt8], name: String)? {
        guard let components = components(relativePath),
              let root = realPath(folder), let file = realPath(root + "/" + components.joined(separator: "/")),
              file.hasPrefix(root + "/"), isRegularFile(file, maxBytes: maxFileBytes),
              let data = FileManager.default.contents(atPath: file) else { return nil }
        return (Array(data), components.last ?? "index.html")
    }

    /// The decoded components of `a/b/c.js`; `index.html` added for a trailing slash (or nothing).
    static func components(_ path: Substring) -> [String]? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.last == "" { parts[parts.count - 1] = "index.html" }
        var out: [String] = []
        for part in parts {
            guard let name = part.removingPercentEncoding, isPlainName(name) else { return nil }
            out.append(name)
        }
        return out.isEmpty ? nil : out
    }

    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\\") && !name.contains("\0")
            && name.utf8.count <= 255
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isRegularFile(_ path: String, maxBytes: Int) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_size <= maxBytes
    }
}
