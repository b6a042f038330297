import HTTPTypes
import Hummingbird

/// Responses for the console's and the modules' static files, with the headers that keep a page
/// from doing more than it should:
/// - `Content-Security-Policy`: scripts, styles, images and connections from this host only, no
///   inline script (so injected markup cannot run), no framing by other sites;
/// - `X-Content-Type-Options: nosniff`: the browser uses the declared type and nothing else;
/// - `Referrer-Policy: no-referrer`: page addresses do not leak to anyone.
/// The files are the same for everyone and hold no secret, so they are served without a token
/// (a browser cannot attach one when it navigates); every API call the pages make needs one.
enum StaticResponse {
    static let policy = policy(imagesFrom: nil)

    /// The policy, with images also from `origin` (the deployment's map tile server, `http.mapTiles`).
    static func policy(imagesFrom origin: String?) -> String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:\(origin.map { " " + $0 } ?? ""); connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    static func file(_ bytes: [UInt8], contentType: String, imagesFrom origin: String? = nil) -> Response {
        Response(status: .ok, headers: [
            .contentType: contentType,
            .contentSecurityPolicy: origin == nil ? policy : policy(imagesFrom: origin),
            .xContentTypeOptions: "nosniff",
            .referrerPolicy: "no-referrer",
            // Revalidate each time: a changed console or module page shows at the next load.
            .cacheControl: "no-cache",
        ], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// 308 to `location` (a page whose relative links need the trailing slash).
    static func redirect(to location: String) -> Response {
        Response(status: .permanentRedirect, headers: [.location: location])
    }
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
