import Foundation
import TesseraSTAGEmulator

// stag-emulator [--port N]: serves the IS/STAG emulator on 127.0.0.1 (docs/stag-emulator.md).
var port = 8090
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--port", let value = arguments.popFirst(), let number = Int(value) { port = number }
}
try await STAGEmulator().runForever(port: port)
