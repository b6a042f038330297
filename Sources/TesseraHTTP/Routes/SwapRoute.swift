import Hummingbird
import TesseraRuntime
import TesseraSDK

/// `POST /v1/plugins/{id}/swap` (admin only): swaps a running plugin's code for the build at
/// `{"library": "/path/to/libX.so"}` on the host's machine, as `tessera plugins swap` asks. The
/// answer is the new generation and the pause, or the error that rolled the swap back (409), a
/// refused gate (400), a plugin that forbids swapping (403) or is not running (503).
struct SwapRoute: Sendable {
    let host: PluginHost
    let maxBodyBytes: Int

    func swap(_ request: Request, context: APIRequestContext) async throws -> Response {
        guard let principal = context.principal else { throw APIError.unauthorized("this route needs a token") }
        guard principal.role == .admin else {
            throw PluginError(.forbidden, "swapping a plugin needs an admin token")
        }
        let id = context.parameters.get("id") ?? ""
        let bytes = try await JSONRequestBody.read(request, limit: maxBodyBytes)
        let body: JSONValue
        do { body = try JSONValue(parsing: bytes) } catch {
            throw PluginError(.invalidInput, "the body is not JSON: \(error)", field: "$")
        }
        guard let library = body["library"]?.stringValue, library.hasPrefix("/") else {
            throw PluginError(.invalidInput, "expected {\"library\": \"/absolute/path/to/the/new/build.so\"}", field: "$.library")
        }
        let report = try await host.swap(id, to: .library(library))
        let pause = report.pause.components
        return .json([
            "plugin": .string(id), "generation": .integer(Int64(report.generation)),
            "pauseMilliseconds": .number(Double(pause.seconds) * 1000 + Double(pause.attoseconds) / 1e15),
            "stateBytes": .integer(Int64(report.stateBytes)), "library": report.libraryPath.map(JSONValue.string) ?? .null,
            "restartRecommended": .bool(report.restartRecommended),
        ])
    }
}
