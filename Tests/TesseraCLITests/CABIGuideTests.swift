import Foundation
import Testing
import TesseraTestFixtures

/// docs/c-abi.md's complete C plugin, as a reader would take it: the two blocks of the page
/// written to files, built with `cc` against the SDK's header, and put through
/// `tessera plugins check`. The page cannot drift from what the host accepts.
@Suite(.hangWatchdog) struct CABIGuideTests {
    /// The code block that follows `<!-- name -->` in the page.
    static func block(_ name: String, in page: String) throws -> String {
        guard let marker = page.range(of: "<!-- \(name) -->\n") else { throw GuideError("no <!-- \(name) --> in docs/c-abi.md") }
        let rest = page[marker.upperBound...]
        guard let open = rest.firstIndex(of: "\n"), let close = rest.range(of: "\n```\n") else { throw GuideError("no code block after \(name)") }
        return String(rest[rest.index(after: open)..<close.lowerBound]) + "\n"
    }

    struct GuideError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func thePagesCounterPluginBuildsWithCCAndPassesTheCheck() async throws {
        let page = try String(contentsOfFile: Fixtures.repositoryRoot + "/docs/c-abi.md", encoding: .utf8)
        let dir = Fixtures.temporaryDirectory("c-abi-guide")
        Fixtures.write(try Self.block("counter.c", in: page), to: dir + "/counter.c")
        Fixtures.write(try Self.block("counter.json", in: page), to: dir + "/counter.json")
        let build = try await runDetached("/usr/bin/env", ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden",
                                                           "-I", Fixtures.repositoryRoot + "/sdk/Sources/CTesseraABI/include",
                                                           dir + "/counter.c", "-o", dir + "/libcounter.so"])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let check = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "check", dir + "/libcounter.so", "--manifest", dir + "/counter.json"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        for line in ["ok: gate 1: sha256 ", ", C ABI 1.0", "ok: operation count: answered", "ok: hot swap: onto its own build: generation 2, 1 bytes of state carried",
                     "dev.example.counter: every check passed"] {
            #expect(check.stdout.contains(line), "\(line)\n\(check.stdout)")
        }
    }
}
