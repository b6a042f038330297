import Foundation

/// This process's memory as the kernel counts it (`/proc/self/status`), in bytes.
struct ResidentMemory {
    /// Resident now (`VmRSS`): anonymous memory plus the pages of mapped files in memory.
    let current: Int
    /// The peak of `current` since start or the last ``resetPeak()`` (`VmHWM`).
    let peak: Int
    /// Of `current`, the anonymous part (`RssAnon`: heap, stacks), which only this process can hold.
    let anonymous: Int

    /// The figures now.
    static func now() -> ResidentMemory {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return ResidentMemory(current: field("VmRSS"), peak: field("VmHWM"), anonymous: field("RssAnon"))
    }

    /// Sets the peak back to the current figure (Linux: `5` to /proc/self/clear_refs), so that a
    /// later ``peak`` is the peak of what ran in between.
    static func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }
}
