import Hummingbird
import TesseraRuntime

/// `GET /ui/<id>/…`: the pages a plugin adds to the console's end-user view, the static files in
/// the folder its manifest's `ui` names (served by the host; no plugin code runs). Only enabled
/// plugins' pages are served. `/ui/<id>` redirects to `/ui/<id>/`, whose `index.html` is the page.
/// A page calls its plugin's operations with `/console/api.js` and the token the console keeps.
struct ModuleAssetRoutes: Sendable {
    let host: any HostAPI

    func serve(_ request: Request, context: APIRequestContext) throws -> Response {
        let id = context.parameters.get("id") ?? ""
        let path = request.uri.path
        guard let ui = host.enabledManifests().first(where: { $0.id == id })?.ui else {
            throw APIError.noRoute(request.method, path)
        }
        let prefix = "/ui/\(id)"
        guard path.hasPrefix(prefix + "/") else { return StaticResponse.redirect(to: prefix + "/") }
        guard let file = ModulePath.read(folder: ui.folder, relativePath: path.dropFirst(prefix.count + 1)) else {
            throw APIError.noRoute(request.method, path)
        }
        return StaticResponse.file(file.bytes, contentType: ContentType.of(file.name), imagesFrom: host.deployment.mapTiles?.origin)
    }
}
