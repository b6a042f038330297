import HTTPTypes
import Hummingbird
import TesseraLocation
import TesseraRuntime
import TesseraSDK

/// `POST /v1/location`: the endpoint of an OwnTracks app in HTTP mode.
///
/// The app POSTs each message as it would publish it over MQTT — one JSON object, or an array of
/// those it queued while offline — and takes any answer as delivered. It expects 200 with a JSON
/// array of messages for the device (OwnTracks booklet, "HTTP"): Tessera has none to send, so the
/// body is `[]`. Whatever the body holds, the answer is that `[]`: location messages become fixes
/// for the location feed; messages of other types (transition, waypoint, lwt, card…) are set
/// aside; anything unusable is counted as malformed in the feed's counters, never a 500, because a
/// refusal would only make the app resend the same bytes. An empty body (the app sends one when a
/// friend is deleted) is accepted and ignored.
///
/// The device is the message's `topic` (`owntracks/jane/phone` → `jane/phone`), else
/// `user/device` from the `X-Limit-U` and `X-Limit-D` headers (or the `u` and `d` query
/// parameters, as the OwnTracks Recorder takes them), else the message's `tid`.
struct LocationRoutes: Sendable {
    let host: any HostAPI
    let maxBodyBytes: Int

    func ingest(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.read(request, limit: maxBodyBytes, empty: [])
        guard !body.isEmpty else { return Self.answer(IngestReport(), skipped: 0) }
        let batch = OwnTracksDecoder().decode(body, defaultDeviceID: Self.deviceID(request))
        let report = await host.ingestLocation(batch.fixes, malformed: batch.malformed.count)
        return Self.answer(report, skipped: batch.skipped.count)
    }

    /// `user/device` from the headers (or the query), when both parts are there.
    static func deviceID(_ request: Request) -> String? {
        let query = QueryParameters(request)
        let user = request.headers[.limitUser] ?? query.string("u")
        let device = request.headers[.limitDevice] ?? query.string("d")
        guard let user, let device, !user.isEmpty, !device.isEmpty else { return nil }
        return "\(user)/\(device)"
    }

    /// 200 with `[]`, as OwnTracks expects; what became of the body is in `Tessera-Location`
    /// (`accepted=2 rejected=1 skipped=0`) for a person or a test to read.
    /// Dropped fixes are also named by reason in `Tessera-Location-Rejected` (`inTheFuture=1
    /// outOfOrder=2`), so that a person can tell a clock problem from a bad fix.
    static func answer(_ report: IngestReport, skipped: Int) -> Response {
        var response = Response.json([])
        response.headers[.tesseraLocation] = "accepted=\(report.accepted) rejected=\(report.rejectedCount) skipped=\(skipped)"
        if !report.rejected.isEmpty {
            response.headers[.tesseraLocationRejected] = report.rejected.sorted { $0.key.rawValue < $1.key.rawValue }
                .map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: " ")
        }
        return response
    }
}

extension HTTPField.Name {
    /// OwnTracks' user name header (the Recorder's `X-Limit-U`).
    static let limitUser = HTTPField.Name("X-Limit-U")!
    /// OwnTracks' device name header (`X-Limit-D`).
    static let limitDevice = HTTPField.Name("X-Limit-D")!
    /// What a location POST did: `accepted=N rejected=N skipped=N`.
    static let tesseraLocation = HTTPField.Name("Tessera-Location")!
    /// The dropped fixes by reason: `inTheFuture=1 outOfOrder=2`.
    static let tesseraLocationRejected = HTTPField.Name("Tessera-Location-Rejected")!
}
