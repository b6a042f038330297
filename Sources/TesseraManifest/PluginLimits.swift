import TesseraSDK

/// A process-tier plugin's resource limits, from its deployment entry's `limits`
/// (docs/isolation.md, "Limits"): applied in the child as rlimits before the plugin loads.
public struct PluginLimits: Sendable, Equatable {
    /// `RLIMIT_DATA` in MiB: the child's heap and private mappings. An allocation past it fails;
    /// the child then dies and the host names the limit as the cause.
    public var memoryMiB: Int?
    /// `RLIMIT_CPU` in seconds of CPU time over the child's life: the kernel sends `SIGXCPU`.
    public var cpuSeconds: Int?

    public init(memoryMiB: Int? = nil, cpuSeconds: Int? = nil) {
        self.memoryMiB = memoryMiB
        self.cpuSeconds = cpuSeconds
    }

    /// From the entry's `limits` object (the schema already checked the types and ranges).
    init?(json: JSONValue?) {
        guard let json, json.objectValue != nil else { return nil }
        self.init(memoryMiB: json["memoryMiB"]?.integerValue.map { Int($0) }, cpuSeconds: json["cpuSeconds"]?.integerValue.map { Int($0) })
    }
}
