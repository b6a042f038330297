import TesseraSDK

/// `log`: a line in the host's log under the plugin's id. Every plugin may call it.
public enum LogMethods {
    public static let log = CapabilityMethodSpec(
        "log", capability: nil, "Writes a line to the host's log under the plugin's id, at a level.",
        parameters: WireSchema.object(["level": ["enum": ["debug", "info", "warning", "error"]], "message": WireSchema.string],
                                      required: ["level", "message"]),
        result: WireSchema.null)

    public static let all = [log]
}
