/// The media type a static file is served with, by its extension. Browsers trust it (the responses
/// say `X-Content-Type-Options: nosniff`), so a script is only ever run from a `.js` file, and a
/// file of a kind not listed is sent as bytes to download, never rendered.
enum ContentType {
    static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "json": "application/json", "txt": "text/plain; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
        "gif": "image/gif", "webp": "image/webp", "ico": "image/x-icon",
        "woff2": "font/woff2", "woff": "font/woff",
    ]

    /// The type for a file name; `application/octet-stream` for an unknown extension.
    static func of(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: ".") else { return "application/octet-stream" }
        return byExtension[fileName[fileName.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
