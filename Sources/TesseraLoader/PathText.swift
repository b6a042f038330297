/// File paths taken apart and put together as plain text, for the load path: `NSString`'s
/// `lastPathComponent` and `appendingPathComponent` bridge through Foundation, and cost more than
/// the rest of a stage look-up's string work (docs/benchmarks.md, "Issue 25, 2026-11-27 (third
/// pass)").
enum PathText {
    /// What follows the last `/` of `path`, trailing slashes ignored (`/a/b.so` → `b.so`, `/a/b/` → `b`,
    /// `b.so` → `b.so`, `/` → `/`), as `NSString.lastPathComponent` gives it.
    static func fileName(of path: String) -> String {
        var path = path
        return path.withUTF8 { bytes in
            let slash = UInt8(ascii: "/")
            var end = bytes.count
            while end > 1, bytes[end - 1] == slash { end -= 1 }
            guard end > 1, let last = bytes[..<end].lastIndex(of: slash) else { return String(decoding: bytes[..<end], as: UTF8.self) }
            return String(decoding: bytes[(last + 1)..<end], as: UTF8.self)
        }
    }

    /// `component` inside `folder`: `folder/component`, with one `/` between them, built in one
    /// buffer.
    static func join(_ folder: String, _ component: String) -> String {
        if folder.isEmpty { return component }
        var joined = ""
        joined.reserveCapacity(folder.utf8.count + 1 + component.utf8.count)
        joined += folder
        if folder.utf8.last != UInt8(ascii: "/") { joined += "/" }
        joined += component
        return joined
    }
}
