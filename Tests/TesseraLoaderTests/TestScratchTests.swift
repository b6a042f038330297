import CTestScratch
import Foundation
import Glibc
import Testing
import TesseraTestFixtures

/// The test process's scratch folder (Tests/CTestScratch/scratch.c): every temporary file of a run
/// lands in one folder that is removed when the run ends, and a folder left by a killed run is
/// removed by the next one. Without it the runs' leftovers once filled a shared disk.
@Suite struct TestScratchTests {
    @Test func temporaryFilesOfTheTestsAndTheirChildrenLandInTheScratchFolder() async throws {
        let root = try #require(Fixtures.scratchRoot)
        #expect((root as NSString).lastPathComponent == "tessera-tests-\(getpid())")
        #expect(NSTemporaryDirectory().hasPrefix(root + "/"))
        #expect(Fixtures.temporaryDirectory("scratch").hasPrefix(root + "/"))
        // A child process inherits it.
        let child = try await runDetached("/usr/bin/env", [])
        #expect(child.stdout.split(separator: "\n").contains("TMPDIR=\(root)/"))
    }

    @Test func aFolderLeftByAnEndedRunIsRemovedAndALiveRunsIsKept() throws {
        let base = Fixtures.temporaryDirectory("scratch-sweep")
        let ended = base + "/tessera-tests-1", live = base + "/tessera-tests-2", other = base + "/tessera-other"
        for folder in [ended, live, other] {
            Fixtures.write("data", to: folder + "/file")
            Fixtures.write("", to: folder + "/.lock")
        }
        // The live run holds its lock, as the running process does for its own folder.
        let held = open(live + "/.lock", O_RDWR)
        defer { close(held) }
        #expect(flock(held, LOCK_EX) == 0)

        #expect(tessera_test_sweep_stale(base) == 1)
        #expect(!FileManager.default.fileExists(atPath: ended))
        #expect(FileManager.default.fileExists(atPath: live + "/file"))
        #expect(FileManager.default.fileExists(atPath: other + "/file"))
    }
}
