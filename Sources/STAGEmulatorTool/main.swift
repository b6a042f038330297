import Foundation
import TesseraSTAGEmulator

// `stag-emulator [--port N]`: serves the IS/STAG emulator on 127.0.0.1 until interrupted.
var port = 9410
let arguments = CommandLine.arguments
if let flag = arguments.firstIndex(of: "--port"), flag + 1 < arguments.count, let value = Int(arguments[flag + 1]) { port = value }
let emulator = try await STAGEmulator.start(port: port, now: Date())
print("stag-emulator on \(emulator.origin) (redirect e.g. https://stag-demo.zcu.cz to it); student \(STAGEmulator.student)")
try await emulator.run()
