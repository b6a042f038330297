import Foundation
import Hummingbird
import TesseraRuntime
import TesseraSDK

/// `POST /v1/plugins/{id}/swap` (admin only): swaps a running plugin's code for the build at
/// `{"library": "/path/to/libX.so"}` on the host's machine, as `tessera plugins swap` asks. The
/// answer is the new generation and the pause, or the error that rolled the swap back (409), a
/// build or manifest the checks refuse (422), a plugin that forbids swapping (403) or is not
/// running (503).
struct SwapRoute: Sendable {
    let host: any HostAPI
    let maxBodyBytes: Int

    /// `{"library": "/absolute/path.so"}`.
    static let input = RouteInput([
        "type": "object", "required": ["library"], "additionalProperties": false,
        "properties": ["library": ["type": "string", "pattern": "^/", "maxLength": 4096,
                                   "description": "The new build, an absolute path on the host's machine."]],
    ])

    func swap(_ request: Request, context: APIRequestContext) async throws -> Response {
        try context.requireAdmin("swapping a plugin")
        let id = context.parameters.get("id") ?? ""
        let body = try await Self.input.read(request, limit: maxBodyBytes)
        let library = body["library"]?.stringValue ?? ""
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: library, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw PluginError(.notFound, "no file at \(library) on the host's machine", field: "$.library")
        }
        let report = try await host.swap(id, to: .library(library))
        let pause = report.pause
        return .json([
            "plugin": .string(id), "generation": .integer(Int64(report.generation)),
            "pauseMilliseconds": .number(pause.timeInterval * 1000),
            "stateBytes": .integer(Int64(report.stateBytes)), "library": report.libraryPath.map(JSONValue.string) ?? .null,
            "restartRecommended": .bool(report.restartRecommended),
        ])
    }
}
