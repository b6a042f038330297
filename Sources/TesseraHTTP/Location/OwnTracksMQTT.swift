import Foundation
import TesseraLocation
import TesseraManifest
import TesseraRuntime

/// OwnTracks in MQTT mode (the mode most of its users run, against a Mosquitto broker): the host
/// subscribes to the deployment's broker (`providers.location.mqtt`, docs/location.md) and takes
/// each message as `POST /v1/location` takes one. The device is the topic
/// (`owntracks/jane/phone` → `jane/phone`); location messages become fixes for the location feed,
/// other types are set aside, anything unusable counts as malformed.
public enum OwnTracksMQTT {
    /// Starts the subscriber of the deployment's broker, if it names one; cancel the task to stop.
    public static func start(host: any HostAPI) throws -> Task<Void, Never>? {
        guard let source = host.deployment.location.mqtt else { return nil }
        var password: String?
        if let file = source.passwordFile {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw MQTTSubscriber.Closed(description: "providers.location.mqtt.passwordFile: cannot read \(file)")
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        let settings = MQTTSubscriber.Settings(host: source.host, port: source.port, tls: source.tls, caFile: source.caFile,
                                               username: source.username, password: password,
                                               clientID: source.clientID ?? "tessera-\(host.deployment.name)", topicFilter: source.topic)
        let log = host.options.log
        // The password is in no message: the subscriber's errors name the broker and the refusal.
        let subscriber = MQTTSubscriber(settings) { message in log(.warning, "owntracks-mqtt", message) }
        return Task {
            await subscriber.run { topic, payload in
                let batch = OwnTracksDecoder().decode(payload, defaultDeviceID: deviceID(topic: topic))
                _ = await host.ingestLocation(batch.fixes, malformed: batch.malformed.count)
            }
        }
    }

    /// `user/device` from `owntracks/user/device` (the part after the first level), or the topic.
    static func deviceID(topic: String) -> String {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        return levels.count >= 3 ? levels.dropFirst().joined(separator: "/") : topic
    }
}
