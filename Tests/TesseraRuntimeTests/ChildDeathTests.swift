import Foundation
import Glibc
import Synchronization
import Testing
@testable import TesseraRuntime
import TesseraTestFixtures

/// Issue 43: a process the plugin's child left behind holding the host socket (before seccomp
/// refused `fork`, the fork trick did this) no longer turns the child's death into a hang. The
/// "runner" here is a shell script that starts a background sleeper sharing its fd 3 and exits:
/// the host learns of the death at once (not when the sleeper lets the socket go) and kills the
/// child's process group, the sleeper with it.
@Suite struct ChildDeathTests {
    @Test(.hangWatchdog) func aChildsDeathIsSeenAtOnceAndWhatItLeftBehindIsKilled() async throws {
        let ws = FixtureWorkspace("child-death")
        let script = ws.root + "/runner.sh"
        let sleeperPIDFile = ws.root + "/sleeper.pid"
        Fixtures.write("""
            #!/bin/sh
            sleep 600 <&3 >&3 &
            echo $! > \(sleeperPIDFile)
            exit 3
            """, to: script)
        chmod(script, 0o755)
        let ended = Mutex<ChildExit?>(nil)
        let sandbox = ChildSandbox(library: script, dataDirectory: ws.dataDirectory, limits: nil)
        let child = try PluginChild.spawn(runner: script, sandbox: sandbox, handler: { _, _ in .null }, exited: { _, exit in
            ended.withLock { $0 = exit }
            return CancellationError()
        })
        // Without the watcher this waits the sleeper's ten minutes, and the hang watchdog fails it.
        await child.reaped()
        #expect(ended.withLock { $0?.status } == 3)
        let sleeper = try #require(Int32((try? String(contentsOfFile: sleeperPIDFile, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        // Killed with the group (it may linger a moment as a zombie of init: its state then is Z).
        var gone = false
        for _ in 0..<100 {
            let state = (try? String(contentsOfFile: "/proc/\(sleeper)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
            if state == nil || state == "Z" { gone = true; break }
            usleep(20_000)
        }
        #expect(gone, "the process the child left behind was killed")
    }
}
