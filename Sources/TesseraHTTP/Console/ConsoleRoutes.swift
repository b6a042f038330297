import Hummingbird

/// The web console: `GET /` (its page) and `GET /console/<file>` (its styles and scripts), served
/// from copies embedded in the binary (``EmbeddedConsole``, generated from `console/` by
/// `scripts/embed-console.sh`), so the host serves it wherever it is installed, with no build step
/// and nothing fetched from elsewhere.
struct ConsoleRoutes: Sendable {
    /// The deployment's map tile server's origin, which the pages may load images from.
    var imagesFrom: String? = nil
    /// Where Debian's `libjs-leaflet` installs Leaflet, served under `/console/vendor/leaflet/`
    /// for the pages that draw a map (never fetched from a CDN).
    static let leafletFolder = "/usr/share/javascript/leaflet"

    /// `GET /`: the console's page.
    func index(_ request: Request, context: APIRequestContext) throws -> Response {
        try file(named: "index.html")
    }

    /// `GET /console/<file>`.
    func asset(_ request: Request, context: APIRequestContext) throws -> Response {
        try file(named: context.parameters.get("file") ?? "")
    }

    /// `GET /console/messages/<lang>.json`: the console's message catalogues (console/i18n.js).
    func message(_ request: Request, context: APIRequestContext) throws -> Response {
        try file(named: "messages/" + (context.parameters.get("file") ?? ""))
    }

    /// `GET /console/vendor/leaflet/<file>` and `…/images/<file>`: Leaflet from the system's copy;
    /// 404 where the package is not installed (pages then draw without tiles).
    func leaflet(_ request: Request, context: APIRequestContext) throws -> Response {
        let prefix = "/console/vendor/leaflet/"
        let path = request.uri.path
        guard path.hasPrefix(prefix), let file = ModulePath.read(folder: Self.leafletFolder, relativePath: path.dropFirst(prefix.count)) else {
            throw APIError.noRoute(request.method, path)
        }
        return StaticResponse.file(file.bytes, contentType: ContentType.of(file.name), imagesFrom: imagesFrom)
    }

    /// `GET /favicon.ico`: the console's icon (browsers ask for it on every page they open).
    func icon(_ request: Request, context: APIRequestContext) throws -> Response {
        try file(named: "icon.svg")
    }

    func file(named name: String) throws -> Response {
        guard let text = EmbeddedConsole.files[name] else { throw APIError.noRoute(.get, "/console/\(name)") }
        return StaticResponse.file(Array(text.utf8), contentType: ContentType.of(name), imagesFrom: imagesFrom)
    }
}
