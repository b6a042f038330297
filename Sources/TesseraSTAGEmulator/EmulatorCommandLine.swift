/// The `stag-emulator` command's arguments: what to do, or why the arguments are wrong.
public enum EmulatorCommandLine: Equatable, Sendable {
    /// Serve on `port` (0: any free port, printed when it listens).
    case serve(port: Int)
    /// Print ``usage`` and exit 0.
    case help
    /// Print the message and ``usage`` to stderr and exit 64.
    case invalid(String)

    public static let usage = """
        usage: stag-emulator [--port N]

        An IS/STAG web-services emulator on 127.0.0.1, for tests and demos: the SSO login, the
        student's and teacher's services under /ws/services/rest2/, and its own control routes
        under /_emulator/ (time, faults, users, subjects, terms, grades; see docs/stag-emulator.md).
        Its time starts at 2026-01-01T00:00:00Z; the built-in people log in with password heslo123:
        NOVAKJ (student), DVORAKP (teacher), KRALM (both).

          --port N     the port to listen on (default 9410; 0 picks a free one)
          -h, --help   print this help
        """

    /// Reads the arguments after the program's name.
    public static func parse(_ arguments: [String]) -> EmulatorCommandLine {
        var port = 9410
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help", "help": return .help
            case "--port":
                guard let value = rest.popFirst() else { return .invalid("--port needs a number") }
                guard let number = Int(value), (0...65_535).contains(number) else { return .invalid("--port: '\(value)' is not a port (0–65535)") }
                port = number
            default:
                return .invalid("unknown argument '\(argument)'")
            }
        }
        return .serve(port: port)
    }
}
