/// File paths taken apart and put together as plain text, for the load path: `NSString`'s
/// `lastPathComponent` and `appendingPathComponent` bridge through Foundation, and cost more than
/// the rest of a stage look-up's string work (docs/benchmarks.md, "Issue 25, 2026-11-27 (third
/// pass)").
enum PathText {
    /// What follows the last `/` of `path`, trailing slashes ignored (`/a/b.so` → `b.so`, `/a/b/` → `b`,
    /// `b.so` → `b.so`, `/` → `/`), as `NSString.lastPathComponent` gives it.
    static func fileName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `component` inside `folder`: `folder/component`, with one `/` between them.
    static func join(_ folder: String, _ component: String) -> String {
        if folder.isEmpty { return component }
        return folder.hasSuffix("/") ? folder + component : folder + "/" + component
    }
}
