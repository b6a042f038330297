import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
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
        let location = try await NoRedirect.location(of: direct)
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

/// Reads a redirect's `Location` without following it.
final class NoRedirect: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    static func location(of url: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let session = URLSession(configuration: .ephemeral, delegate: NoRedirect(), delegateQueue: nil)
            session.dataTask(with: URL(string: url)!) { _, response, error in
                if let error { continuation.resume(throwing: error); return }
                continuation.resume(returning: (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location") ?? "")
            }.resume()
        }
    }
}

/// The plugin error's code and message from a failed call.
func failure(_ call: () async throws -> Any) async -> PluginError? {
    do { _ = try await call(); return nil } catch let error as PluginError { return error } catch { return nil }
}
