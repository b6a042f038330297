import Foundation
import TesseraHTTP
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// A real host with the probe plugins in-process behind the real edge, with an admin and a user
/// token. Requests reach the edge's router without a socket unless the test asks for a socket
/// (``EdgeClient/Transport``).
final class TestServer: StoppableTestServer {
    /// The temporary folder with the manifests, the deployment and the data directory.
    let root: String
    let host: PluginHost
    let server: HTTPServer
    let tokens: TokenStore
    let client: EdgeClient
    /// The loopback port, for a socket; 0 for the router, where nothing listens.
    var port: Int { client.port }
    let adminToken: String
    let userToken: String
    /// Calls that reached the probe plugin's code.
    let calls: CallCounter

    /// Starts it. `ready: false` leaves `/readyz` at 503 (as while a host starts).
    /// `clock`: the deployment's clock (`virtual`, or `system`); `keepAlive`: the SSE keep-alive.
    /// `rateLimits`, when given, replaces `rateLimit` (which limits calls only).
    static func start(maxBodyBytes: Int = 4096, rateLimit: HTTPConfiguration.RateLimit? = nil,
                      rateLimits: HTTPConfiguration.RateLimits? = nil, ready: Bool = true,
                      clock: String = "virtual", keepAlive: Duration = .seconds(15),
                      deploymentExtra: [String: Any] = [:], transport: EdgeClient.Transport = .router) async throws -> TestServer {
        let ws = FixtureWorkspace("http")
        let missing = ws.root + "/in-process.so"  // never opened: in-process plugins skip the library gates
        let ui = ModuleFiles.write(in: ws.root)
        ws.addManifest(id: ProbePlugin.id, library: missing) {
            $0["description"] = "The HTTP tests' probe."
            $0["operations"] = ProbePlugin.operations
            $0["requires"] = ProbePlugin.requires
            $0["events"] = ["emits": [["name": "pinged"]]]
            $0["ui"] = ["folder": ui, "title": "Probe"]
        }
        ws.addManifest(id: BrokenPlugin.id, library: missing)
        let grants: [String: Any] = ["clock": [:] as [String: Any], "notifications": [:] as [String: Any], "events": [:] as [String: Any]]
        ws.writeDeployment(plugins: [["id": ProbePlugin.id, "grants": grants], ["id": BrokenPlugin.id, "grants": [:] as [String: Any]]],
                           clock: clock, extra: deploymentExtra)
        let counter = CallCounter()
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory,
            inProcessPlugins: [ProbePlugin.id: PluginFactory { ProbePlugin(counter: counter) }, BrokenPlugin.id: PluginFactory { BrokenPlugin() }]))
        let tokens = TokenStore(dataDirectory: ws.dataDirectory)
        let admin = try tokens.ensureAdminToken()!
        let user = try tokens.create(name: "ada", role: .user)
        let limits = rateLimits ?? HTTPConfiguration.RateLimits(calls: rateLimit, admin: nil)
        let server = HTTPServer(host: host, tokens: tokens, configuration: HTTPConfiguration(
            host: "127.0.0.1", port: 0, maxBodyBytes: maxBodyBytes, rateLimits: limits, streamKeepAlive: keepAlive))
        let client = try await EdgeClient.connect(to: server, by: transport)
        await host.start()
        if ready { server.markReady() }
        return TestServer(root: ws.root, host: host, server: server, tokens: tokens, client: client,
                          adminToken: admin, userToken: user, calls: counter)
    }

    private init(root: String, host: PluginHost, server: HTTPServer, tokens: TokenStore, client: EdgeClient,
                 adminToken: String, userToken: String, calls: CallCounter) {
        self.root = root
        self.host = host
        self.server = server
        self.tokens = tokens
        self.client = client
        self.adminToken = adminToken
        self.userToken = userToken
        self.calls = calls
    }

    /// Who a request authenticates as.
    enum As { case admin, user, none, token(String) }

    /// Sends a request; a JSON body gets `Content-Type: application/json` unless `headers` says otherwise.
    func request(_ method: String, _ path: String, as who: As = .admin, headers: [(String, String)] = [],
                 json: String? = nil, body: [UInt8]? = nil) async throws -> RawResponse {
        var all = headers
        switch who {
        case .admin: all.append(("Authorization", "Bearer \(adminToken)"))
        case .user: all.append(("Authorization", "Bearer \(userToken)"))
        case .token(let token): all.append(("Authorization", "Bearer \(token)"))
        case .none: break
        }
        if json != nil, !all.contains(where: { $0.0.lowercased() == "content-type" }) { all.append(("Content-Type", "application/json")) }
        return try await client.request(method, path, headers: all, body: json.map { Array($0.utf8) } ?? body)
    }

    /// `POST /v1/plugins/test.probe/ops/<op>` with a JSON body.
    func call(_ op: String, _ json: String, as who: As = .admin) async throws -> RawResponse {
        try await request("POST", "/v1/plugins/\(ProbePlugin.id)/ops/\(op)", as: who, json: json)
    }

    func stop() async {
        await server.stop()
        await host.stop()
    }
}
