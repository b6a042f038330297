import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTestFixtures
import TesseraTesting
import Testing

/// A plugin host running the STAG module with `https://stag-demo.zcu.cz` sent to an emulator.
struct STAGFixture {
    let emulator: STAGEmulator
    let host: PluginTestHost

    static func start(config: JSONValue = [:], clock: Date = Date(timeIntervalSince1970: 1_767_225_600)) async throws -> STAGFixture {
        let emulator = try await STAGEmulator.start()
        let host = try await PluginTestHost(manifest: manifestPath, plugin: { STAGPlugin() }, config: config, start: clock,
                                            httpRedirects: ["https://stag-demo.zcu.cz": emulator.origin, "https://www.zcu.cz": emulator.origin])
        return STAGFixture(emulator: emulator, host: host)
    }

    static var manifestPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("manifests/stag.json").path
    }

    /// Goes through the SSO redirect on the emulator (as a browser would) and returns the ticket.
    func ssoTicket() async throws -> String {
        let url = try await host.call("login-url", ["university": "demo", "returnURL": "http://localhost:8420/ui/stag/"])["url"]?.stringValue ?? ""
        let direct = url.replacingOccurrences(of: "https://stag-demo.zcu.cz", with: emulator.origin)
        // The redirect is read, not followed (RawHTTPClient never follows one).
        let location = try await RawHTTPClient.request("GET", url: direct).headers["location"] ?? ""
        let components = URLComponents(string: location)
        return components?.queryItems?.first { $0.name == "stagUserTicket" }?.value ?? ""
    }

    /// Logs in through the SSO redirect; returns the ticket.
    @discardableResult
    func login() async throws -> String {
        let ticket = try await ssoTicket()
        _ = try await host.call("complete-login", ["university": "demo", "ticket": .string(ticket)])
        return ticket
    }

    func stop() async {
        await host.stop()
        await emulator.stop()
    }
}

/// The plugin error's code and message from a failed call.
func failure(_ call: () async throws -> Any) async -> PluginError? {
    do { _ = try await call(); return nil } catch let error as PluginError { return error } catch { return nil }
}
