import Foundation
import TesseraLoader
import TesseraSDK

/// The child process of the process tier, `tessera-plugin-runner` (docs/isolation.md):
///
/// - `tessera-plugin-runner verify PATH [--id ID]`: gates 2 and 3 on a library, in this throwaway
///   process; prints one JSON line (`{"ok": true, "pluginID", "abi"}` or `{"ok": false, "refused"}`)
///   and exits 0 or 1. `tessera plugins verify --load` runs it, so the library's constructors never
///   run in the command's own process; the runner's constructor sandboxes it as it does `serve`
///   (without a data directory or limits).
/// - `tessera-plugin-runner serve --parent PID [--lanes N] [--busy-poll-us N] --library PATH [--data DIR] [--memory-limit BYTES]
///   [--cpu-limit SECONDS]`: one plugin for a host, over the socket on fd 3, in the sandbox the
///   runner's constructor applied before `main` (CTesseraSandbox; docs/isolation.md).
public enum PluginRunner {
    /// The socket the host hands the child (dup2'ed there by the spawn).
    public static let socketDescriptor: Int32 = 3
    /// The child's ends of the lanes (``CallLanes``), `--lanes N` of them, follow the socket.
    public static func laneDescriptors(_ count: Int) -> [Int32] { (0..<count).map { socketDescriptor + 1 + Int32($0) } }

    public static func main(_ arguments: [String], sandbox: SandboxReport = .none) async -> Never {
        let args = Array(arguments.dropFirst())
        switch args.first {
        case "verify" where args.count >= 2:
            let id = args.firstIndex(of: "--id").flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil }
            exit(verify(path: args[1], expectedID: id))
        case "serve":
            let parent = args.firstIndex(of: "--parent").flatMap { $0 + 1 < args.count ? pid_t(args[$0 + 1]) : nil }
            let lanes = args.firstIndex(of: "--lanes").flatMap { $0 + 1 < args.count ? Int(args[$0 + 1]) : nil } ?? 0
            let busyPoll = args.firstIndex(of: "--busy-poll-us").flatMap { $0 + 1 < args.count ? Int(args[$0 + 1]) : nil } ?? 0
            await serve(parent: parent, lanes: min(max(lanes, 0), 64), busyPolling: BusyPolling(microseconds: min(max(busyPoll, 0), 1_000)),
                        sandbox: sandbox)
        default:
            FileHandle.standardError.write(Data("usage: tessera-plugin-runner verify PATH [--id ID] | serve --parent PID [--lanes N] [--busy-poll-us N] --library PATH [--data DIR] [--memory-limit BYTES] [--cpu-limit SECONDS]\n".utf8))
            exit(64)
        }
    }

    static func verify(path: String, expectedID: String?) -> Int32 {
        let answer: JSONValue
        do {
            // The stamp says which entry to look for; a file without a readable one is refused at dlopen.
            let isCABI = (try? LibraryFacts(path: path))?.stampSection.flatMap { try? PluginStamp(bytes: $0) }?.isCABI ?? false
            let (_, handshake) = try LibraryLoader.openAndShakeHands(path: path, isCABI: isCABI, expectedID: expectedID)
            answer = ["ok": true, "pluginID": .string(handshake.pluginID),
                      "abi": .string("\(handshake.reportedABI.major).\(handshake.reportedABI.minor)"), "pid": .integer(Int64(getpid()))]
        } catch {
            answer = ["ok": false, "refused": error.wire]
        }
        print(answer.serialized())
        return answer["ok"] == true ? 0 : 1
    }

    /// `prctl(PR_SET_PDEATHSIG, SIGKILL)`: Swift's Glibc module leaves out <sys/prctl.h>, so the
    /// function is looked up by name (it is variadic in C; the kernel reads five words).
    static func dieWithParent() {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        let PR_SET_PDEATHSIG: Int32 = 1
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return }
        _ = unsafeBitCast(symbol, to: Prctl.self)(PR_SET_PDEATHSIG, UInt(SIGKILL), 0, 0, 0)
    }

    /// Serves the host until the socket ends (the host stopped the plugin, or died), then exits.
    static func serve(parent: pid_t?, lanes: Int, busyPolling: BusyPolling, sandbox: SandboxReport) async -> Never {
        // Die with the host: the kernel kills this process when its parent goes. If the parent
        // went before this line ran, the parent id already differs.
        dieWithParent()
        if let parent, getppid() != parent { exit(70) }
        signal(SIGPIPE, SIG_IGN)
        let session = ChildSession(sandbox: sandbox)
        // The reader thread runs the handlers (ChildEventLoop): an echo is read, answered and
        // written on one thread, with no hand-off to the concurrency pool and back.
        let peer = PeerConnection(fd: socketDescriptor, lanes: laneDescriptors(lanes), eventLoop: ChildEventLoop(busyPolling: busyPolling),
                                  operationHandler: { frame in try await session.operation(frame.call) }) { method, params in
            try await session.handle(method, params)
        }
        session.attach(peer)
        // `_exit`, not `exit`: the socket ends on the reader thread while the runtime's other threads
        // run on, and `exit`'s static destructors under them trapped now and then (SIGILL). The
        // child keeps nothing to flush: its durable data is in the host.
        peer.start { _exit(0) }
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }
}
