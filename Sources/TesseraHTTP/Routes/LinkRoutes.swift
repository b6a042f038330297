import HTTPTypes
import Hummingbird
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// `GET /v1/links/{id}/{op}/{token}`: a capability link. The token in the path is the only
/// credential — no bearer token — and it reaches only an operation whose manifest opens it to the
/// `link` role (`"roles": ["link"]`), called with `{"token": …}` as the `link` principal. The
/// plugin resolves the token (a guardian's live view of one trip, for safe travel). Nothing here
/// knows any plugin: the manifest decides.
///
/// Every refusal that could tell one token from another is the same 404 — an operation not open to
/// links, a token of the wrong form, one the plugin does not know, has expired or was revoked — and
/// no answer or log line repeats the token. Link requests spend the rate-limit bucket of the one
/// `link` principal (``AuthMiddleware/linkHolder``), so unauthenticated traffic has one budget.
struct LinkRoutes: Sendable {
    let host: any HostAPI

    /// The one answer for every link that does not open.
    static let noLink = APIError(.notFound, code: "not_found", "no such link: it may have expired or been revoked")

    func call(_ request: Request, context: APIRequestContext) async throws -> Response {
        let plugin = context.parameters.get("id") ?? "", operation = context.parameters.get("op") ?? ""
        let token = context.parameters.get("token") ?? ""
        guard let principal = context.principal, principal.role == .link,
              host.enabledManifests().contains(where: { $0.id == plugin }),
              host.manifest(of: plugin)?.operation(named: operation)?.roles.contains(.link) == true else {
            throw Self.noLink
        }
        let result: JSONValue
        do {
            result = try await host.call(plugin, operation, input: ["token": .string(token)], as: principal)
        } catch let error where [.notFound, .invalidInput, .forbidden].contains(error.code) {
            throw Self.noLink
        } catch {
            throw APIError(error)  // turned into its status here, so no log line names the path and its token
        }
        var response = Response.json(result)
        // What the link shows changes and is private: never stored by a cache, never sent on as a Referer.
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return response
    }
}
