import Foundation
import TesseraSTAGEmulator

// `stag-emulator [--port N]`: serves the IS/STAG emulator on 127.0.0.1 until interrupted; `--help` says how.
switch EmulatorCommandLine.parse(Array(CommandLine.arguments.dropFirst())) {
case .help:
    print(EmulatorCommandLine.usage)
case .invalid(let message):
    FileHandle.standardError.write(Data("stag-emulator: \(message)\n\n\(EmulatorCommandLine.usage)\n".utf8))
    exit(64)
case .serve(let port):
    // Its time starts at 2026-01-01T00:00Z, where the fixtures' terms are still open; POST /_emulator/time moves it.
    let emulator = try await STAGEmulator.start(port: port)
    // Written straight to the file descriptor (no buffer), so a script reading the port sees it at once.
    FileHandle.standardOutput.write(Data("stag-emulator on \(emulator.origin) (redirect e.g. https://stag-demo.zcu.cz to it); student \(STAGEmulator.student)\n".utf8))
    try await emulator.run()
}
