import Foundation
import TesseraSDK

/// Trip photos on the live view, reached only through a link of their own trip (issue 21).
///
/// A capability link's operation takes its token and nothing else (docs/http.md), so each photo
/// has a token of its own, derived from the trip's link: the first 192 bits of
/// SHA-256("live-photo|" + link token + "|" + the photo's address), as 32 base64url characters.
/// Derived, not stored: every host holding the trip and its link answers the same token without
/// writing anything (a guardian's host may not write `live_links`), it is as unguessable as the
/// link itself, it names no file, and it stops working with the link — expired or revoked, the
/// photo's token resolves to nothing. A photo of another trip is never derived from this link.
///
/// The answer carries the photo as base64 for the page to show in an `<img>`, sized by CSS (no
/// downscaling in the module: a photo is at most 20 MB, the page asks for one only when shown).
extension Travel {
    static func photoToken(link: String, address: String) -> String {
        let digest = SHA256.digest(Array("live-photo|\(link)|\(address)".utf8))
        return Data(digest.prefix(24)).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// A trip's PHOTO activities, oldest first.
    func photoRows(trip tripID: String) async throws -> [Row] {
        try await rows("""
            SELECT lat, lon, created_at, file_ref FROM trip_activities WHERE trip_id = ? AND type = 'PHOTO' AND file_ref != ''
            ORDER BY created_at, id
            """, [.text(tripID)])
    }

    /// `live-photo` (open to the `link` role only): the photo whose token is derived from a working
    /// link of the photo's own trip. Anything else is the live view's one `not_found`.
    func livePhoto(_ input: TokenInput) async throws -> JSONValue {
        guard let files else { throw Self.noLiveView }
        let links = try await rows("""
            SELECT token, trip_id FROM live_links WHERE trip_id != '' AND revoked_at = '' AND expires_at > ?
            """, [SQLValue(now)])
        for link in links {
            for photo in try await photoRows(trip: link.string("trip_id"))
            where Self.photoToken(link: link.string("token"), address: photo.string("file_ref")) == input.token {
                let address = photo.string("file_ref")
                let file = try await files.stat(address)
                let bytes = try await files.read(address)
                return ["mediaType": .string(file.mediaType), "size": .integer(Int64(bytes.count)), "at": photo["created_at"].jsonValue,
                        "data": .string(Data(bytes).base64EncodedString())]
            }
        }
        throw Self.noLiveView
    }
}
