import Foundation
import Testing

/// The programs and Python modules the tests start, as `scripts/setup.sh` lists them: that script
/// is the one list of the project's system packages (it installs them), and this reads its table.
///
/// A test that starts one of them carries `.needs("pdftotext")`: where the program is missing,
/// the test is skipped with a comment naming the package, and the one test
/// `theProgramsTheTestsStartAreInstalled` fails with one line naming every missing package, rather
/// than each such test failing on its own.
public enum ExternalTools {
    /// One row of the set-up script's table.
    public struct Package: Sendable, Equatable {
        /// `build` or `test`.
        public let group: String
        /// `apt`, `pip` or `tool`.
        public let source: String
        public let name: String
        /// What the project starts or imports from it: a program name, an absolute path (a glob
        /// where a folder holds a version), `python:MODULE`, `debian-python:MODULE`, `toolchain:PROGRAM`.
        public let uses: [String]
    }

    /// The set-up script's path.
    public static let setUpScript = Fixtures.repositoryRoot + "/scripts/setup.sh"

    /// The table, read once.
    public static let packages: [Package] = {
        guard let text = try? String(contentsOfFile: setUpScript, encoding: .utf8),
              let start = text.range(of: "PACKAGES='\n"),
              let end = text.range(of: "\n'", range: start.upperBound..<text.endIndex) else { return [] }
        return text[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard fields.count >= 4 else { return nil }
            let uses = fields[3] == "-" ? [] : fields[3].split(separator: ",").map(String.init)
            return Package(group: fields[0], source: fields[1], name: fields[2], uses: uses)
        }
    }()

    /// The package whose `uses` holds `use` (a program's name also matches an absolute path
    /// or a `toolchain:` entry ending in it).
    public static func package(of use: String) -> Package? {
        packages.first { package in package.uses.contains { entry in matches(entry, use) } }
    }

    static func matches(_ entry: String, _ use: String) -> Bool {
        if entry == use { return true }
        if entry.hasPrefix("toolchain:") { return String(entry.dropFirst("toolchain:".count)) == use }
        if entry.hasPrefix("/") { return (entry as NSString).lastPathComponent == use }
        return false
    }

    /// Is one `uses` entry there?
    public static func isPresent(_ entry: String) -> Bool {
        if entry.hasPrefix("python:") { return importable(String(entry.dropFirst(7)), python: "python3") }
        if entry.hasPrefix("debian-python:") { return importable(String(entry.dropFirst(14)), python: "/usr/bin/python3") }
        if entry.hasPrefix("toolchain:") { return onPath(String(entry.dropFirst(10))) != nil }
        if entry.hasPrefix("/") { return !expand(entry).isEmpty }
        return onPath(entry) != nil
    }

    /// Where `use` (a program's name or a table entry) is installed, if it is.
    public static func path(of use: String) -> String? {
        if let entry = package(of: use)?.uses.first(where: { matches($0, use) }), entry.hasPrefix("/") {
            return expand(entry).first
        }
        return onPath(use.hasPrefix("toolchain:") ? String(use.dropFirst(10)) : use)
    }

    /// Every entry of the test and build groups that is not there, as "package (entry)" (the
    /// bench group is what only `tessera-bench` starts).
    public static var missing: [String] {
        packages.filter { ["build", "test"].contains($0.group) }
            .flatMap { package in package.uses.filter { !isPresent($0) }.map { "\(package.name) (\($0))" } }
    }

    /// The one line a run whose tools are missing shows.
    public static func missingLine(_ missing: [String]) -> String {
        "the tests need what is missing here: \(missing.joined(separator: ", ")); run scripts/setup.sh test"
    }

    private static let presence = PresenceCache()

    /// Cached: `.needs` is evaluated for every test that carries it.
    static func cachedPresence(_ entry: String) -> Bool { presence.value(entry) { isPresent(entry) } }

    private static func onPath(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// An absolute path whose one `*` stands for a folder name (`/usr/lib/postgresql/*/bin/initdb`).
    private static func expand(_ pattern: String) -> [String] {
        let parts = pattern.components(separatedBy: "/*/")
        guard parts.count == 2 else { return FileManager.default.isExecutableFile(atPath: pattern) ? [pattern] : [] }
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: parts[0])) ?? []
        return folders.sorted(by: >).map { parts[0] + "/" + $0 + "/" + parts[1] }
            .filter { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func importable(_ module: String, python: String) -> Bool {
        let script = "import importlib.util, sys; sys.exit(importlib.util.find_spec('\(module)') is None)"
        guard let result = try? run("/usr/bin/env", [python, "-c", script]) else { return false }
        return result.status == 0
    }
}

/// A small thread-safe memo of which entries are present.
private final class PresenceCache: @unchecked Sendable {
    private let lock = NSLock()
    private var known: [String: Bool] = [:]

    func value(_ key: String, _ compute: () -> Bool) -> Bool {
        lock.lock()
        if let value = known[key] { lock.unlock(); return value }
        lock.unlock()
        let value = compute()
        lock.lock()
        known[key] = value
        lock.unlock()
        return value
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where every one of `uses` (program names or the set-up table's entries)
    /// is installed. Where one is not, the test is skipped with a comment naming its package, and
    /// `theProgramsTheTestsStartAreInstalled` fails with one line for the whole run.
    public static func needs(_ uses: String...) -> Self {
        let absent = uses.filter { use in
            guard let package = ExternalTools.package(of: use) else { return true }
            let entry = package.uses.first { ExternalTools.matches($0, use) } ?? use
            return !ExternalTools.cachedPresence(entry)
        }
        let names = absent.map { use in ExternalTools.package(of: use).map { "\(use) (\($0.name))" } ?? "\(use) (in no row of scripts/setup.sh)" }
        return .enabled(if: absent.isEmpty, Comment(rawValue: "skipped: needs \(names.joined(separator: ", ")); run scripts/setup.sh test"))
    }
}
