/// File paths taken apart and put together as plain text, for the load path: `NSString`'s
/// `lastPathComponent` and `appendingPathComponent` bridge through Foundation, and cost more than
/// the rest of a stage look-up's string work (docs/benchmarks.md, "Issue 25, 2026-11-27 (third
/// pass)").
enum PathText {
    /// What follows the last `/` of `path`, trailing slashes ignored (`/a/b.so` → `b.so`, `/a/b/` → `b`,
    /// `b.so` → `b.so`, `/` → `/`), as `NSString.lastPathComponent` gives it.
    static func fileName(of path: String) -> String {
        let slash = UInt8(ascii: "/")
        var trimmed = path.utf8[...]
        while trimmed.count > 1, trimmed.last == slash { trimmed = trimmed.dropLast() }
        guard trimmed.count > 1, let last = trimmed.lastIndex(of: slash) else { return String(Substring(trimmed)) }
        return String(Substring(trimmed[trimmed.index(after: last)...]))
    }

    /// `component` inside `folder`: `folder/component`, with one `/` between them.
    static func join(_ folder: String, _ component: String) -> String {
        if folder.isEmpty { return component }
        return folder.hasSuffix("/") ? folder + component : folder + "/" + component
    }
}
