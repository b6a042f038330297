import Foundation
import TesseraSTAGEmulator

// `stag-emulator [--port N]`: serves the IS/STAG emulator on 127.0.0.1 until interrupted.
var port = 9410
let arguments = CommandLine.arguments
if let flag = arguments.firstIndex(of: "--port"), flag + 1 < arguments.count, let value = Int(arguments[flag + 1]) { port = value }
// Its time starts at 2026-01-01T00:00Z, where the fixtures' terms are still open; POST /_emulator/time moves it.
let emulator = try await STAGEmulator.start(port: port)
FileHandle.standardOutput.write(Data("stag-emulator on \(emulator.origin) (redirect e.g. https://stag-demo.zcu.cz to it); student \(STAGEmulator.student)\n".utf8))
try await emulator.run()
