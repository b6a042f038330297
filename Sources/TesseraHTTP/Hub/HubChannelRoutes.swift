import Foundation
import Hummingbird
import TesseraHub
import TesseraSDK

/// A person's delivery channels at the hub (docs/hub.md, "Delivery channels"): list, add and
/// remove, each with the person's own device token.
struct HubChannelRoutes {
    let routes: HubRoutes
    /// Whether the hub sends mail (`providers.mail`): e-mail channels need it.
    let mailSink: Bool

    static func add(to table: inout RouteTable, routes: HubRoutes, mailSink: Bool) {
        let channels = HubChannelRoutes(routes: routes, mailSink: mailSink)
        table.add(.get, "/v1/hub/channels", channels.list)
        table.add(.post, "/v1/hub/channels", channels.create)
        table.add(.delete, "/v1/hub/channels/:channel", channels.remove)
        table.add(.post, "/v1/hub/channels/:channel/confirm", channels.confirm)
    }

    struct NewChannelInput: Decodable { let kind: String; let url: String?; let address: String?; let plugin: String? }
    struct ChannelOutput: Encodable {
        let id: String; let kind: String; let url: String?; let address: String?; let plugin: String?
        let createdAt: String; let createdAtMillis: Int64; let confirmed: Bool
        /// A webhook's signing secret: in the answer that adds it, and only there.
        let secret: String?

        init(_ channel: HubChannel, secret: String? = nil) {
            id = channel.id
            kind = channel.kind.rawValue
            url = channel.kind == .webhook ? channel.target : nil
            address = channel.kind == .email ? channel.target : nil
            plugin = channel.plugin
            createdAt = HubRoutes.iso(channel.createdAtMillis)
            createdAtMillis = channel.createdAtMillis
            confirmed = channel.confirmed
            self.secret = secret
        }
    }
    struct ChannelsOutput: Encodable { let channels: [ChannelOutput] }

    func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await routes.authenticate(request)
        let channels = try await routes.run { try await routes.hub.channels.channels(of: device.person) }
        return try HubJSON.response(ChannelsOutput(channels: channels.map { ChannelOutput($0) }))
    }

    func create(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await routes.authenticate(request)
        let input = try await HubJSON.decode(NewChannelInput.self, from: request, limit: routes.maxBodyBytes)
        let added = try await routes.run {
            try await routes.hub.channels.addChannel(NewChannel(kind: input.kind, url: input.url, address: input.address, plugin: input.plugin),
                                            for: device.person, mailSink: mailSink)
        }
        return try HubJSON.response(ChannelOutput(added.channel, secret: added.secret), status: .created)
    }

    struct ConfirmInput: Decodable { let code: String }

    /// An e-mail channel to another address than the account's: the code mailed there.
    func confirm(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await routes.authenticate(request)
        let input = try await HubJSON.decode(ConfirmInput.self, from: request, limit: routes.maxBodyBytes)
        let channel = try await routes.run {
            try await routes.hub.channels.confirmChannel(context.parameters.get("channel") ?? "", code: input.code, of: device.person)
        }
        return try HubJSON.response(ChannelOutput(channel))
    }

    func remove(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await routes.authenticate(request)
        try await routes.run { try await routes.hub.channels.removeChannel(context.parameters.get("channel") ?? "", of: device.person) }
        return Response(status: .noContent)
    }
}
