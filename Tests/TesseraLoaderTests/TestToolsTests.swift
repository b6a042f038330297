import Foundation
import Testing
import TesseraTestFixtures

/// The programs the tests start come from one list, `scripts/setup.sh`'s table, which the README's
/// test command installs: a test starting a program missing from it would pass here and fail on a
/// newcomer's machine.
@Suite struct TestToolsTests {
    /// Where a tool is missing, this is the run's one failure about it; the tests that need the
    /// tool are skipped (`.needs`).
    @Test func theProgramsTheTestsStartAreInstalled() {
        let missing = ExternalTools.missing
        #expect(missing.isEmpty, Comment(rawValue: ExternalTools.missingLine(missing)))
    }

    @Test func theSetUpTableIsRead() {
        let names = ExternalTools.packages.map(\.name)
        #expect(names.contains("libsqlite3-dev") && names.contains("poppler-utils") && names.contains("chromium"))
        #expect(ExternalTools.package(of: "pdftotext")?.name == "poppler-utils")
        #expect(ExternalTools.package(of: "initdb")?.name == "postgresql")
        #expect(ExternalTools.package(of: "python:schemathesis")?.source == "pip")
        #expect(ExternalTools.package(of: "no-such-program") == nil)
    }

    @Test func everyProgramTheTestsStartIsInTheSetUpList() throws {
        let started = try Self.programsStartedByTheTests()
        // The scan must see the programs it is meant to see, or it proves nothing.
        for known in ["pdftotext", "python3", "sha256sum", "chromium", "runuser", "python:schemathesis", "swiftc"] {
            #expect(started[known] != nil, "the scan of Tests/ no longer finds \(known)")
        }
        let unlisted = started.filter { use, _ in
            use.hasPrefix("python:") ? !Self.listed(module: String(use.dropFirst(7))) : ExternalTools.package(of: use) == nil
        }
        #expect(unlisted.isEmpty, Comment(rawValue: "started by the tests but in no row of scripts/setup.sh: "
            + unlisted.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")))
    }

    /// Python modules may come from either Python the table names.
    static func listed(module: String) -> Bool {
        ExternalTools.package(of: "python:" + module) != nil || ExternalTools.package(of: "debian-python:" + module) != nil
    }

    /// The standard library's modules, which any python3 has.
    static let pythonStandardLibrary: Set<String> = ["csv", "json", "sys", "hmac", "hashlib", "base64", "os", "email", "smtplib", "importlib"]

    /// Every program (and `python:MODULE`) the test sources start, with a file that starts it.
    static func programsStartedByTheTests() throws -> [String: String] {
        let root = Fixtures.repositoryRoot + "/Tests"
        let patterns: [(NSRegularExpression, (String) -> String?)] = try [
            // "/usr/bin/env", ["NAME" …
            (regex(#""/usr/bin/env", \["([A-Za-z0-9_.+-]+)""#), { $0 }),
            // an absolute path to a program: "/usr/bin/NAME", "/usr/lib/chromium/chromium"
            (regex(#""(?:/usr)?/(?:s?bin|lib/[a-z0-9-]+)/([A-Za-z0-9_.+-]+)""#), { $0 == "env" ? nil : $0 }),
            // the fixtures' finders and runners: toolPath("cc"), executable("gpsfake"), tool("swiftc"), run("pdftotext"
            (regex(#"\b(?:toolPath|executable|tool|run)\("([a-z][A-Za-z0-9_+-]*)""#), { $0 }),
            // PostgreSQL's programs, found in its versioned folder
            (regex(#"binaries \+ "/([a-z_]+)""#), { $0 }),
            // .needs("pdftotext", "pdftoppm")
            (regex(#"\.needs\("([^"]+)""#), { $0 }),
            // python3 -m MODULE, python3 -c "import MODULE"
            (regex(#"python3?"?, "-m", "([A-Za-z_][A-Za-z0-9_]*)"#), { "python:" + $0 }),
            (regex(#""import ([A-Za-z_][A-Za-z0-9_]*)"#), { "python:" + $0 }),
        ]
        var found: [String: String] = [:]
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        for file in files where !file.hasSuffix("TestToolsTests.swift") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            for (pattern, name) in patterns {
                for match in pattern.matches(in: text, range: range) {
                    guard let captured = Range(match.range(at: 1), in: text), let use = name(String(text[captured])) else { continue }
                    if use.hasPrefix("python:"), pythonStandardLibrary.contains(String(use.dropFirst(7))) { continue }
                    found[use] = found[use] ?? file
                }
            }
        }
        return found
    }

    private static func regex(_ pattern: String) throws -> NSRegularExpression { try NSRegularExpression(pattern: pattern) }
}
