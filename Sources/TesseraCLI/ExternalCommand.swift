import Foundation

/// Runs a program found on `PATH` (through `/usr/bin/env`) and waits for it.
enum ExternalCommand {
    /// `program` with `arguments`, in `directory` (default: the current folder); its exit status and
    /// output (stdout, or with `mergingErrors` stdout and stderr together, as a person would see them).
    static func run(_ program: String, _ arguments: [String], in directory: String? = nil,
                    mergingErrors: Bool = false) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = mergingErrors ? pipe : FileHandle.nullDevice
        do { try process.run() } catch { return (127, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
