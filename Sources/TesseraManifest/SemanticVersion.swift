/// A SemVer 2.0 version: `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int
    /// Dot-separated pre-release identifiers (`rc.1` -> `["rc", "1"]`); empty for a release.
    public let prerelease: [String]
    /// Build metadata; ignored when comparing.
    public let build: String?

    public init(_ major: Int, _ minor: Int, _ patch: Int, prerelease: [String] = [], build: String? = nil) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
        self.build = build
    }

    /// Parses `1.2.3`, `1.2.3-rc.1`, `1.2.3+abc`; `nil` for anything else.
    public init?(_ text: String) {
        var rest = Substring(text)
        var build: String?
        if let plus = rest.firstIndex(of: "+") {
            build = String(rest[rest.index(after: plus)...])
            rest = rest[..<plus]
        }
        var prerelease: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            prerelease = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if prerelease.contains(where: \.isEmpty) { return nil }
            rest = rest[..<dash]
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let a = Int(parts[0]), let b = Int(parts[1]), let c = Int(parts[2]), a >= 0, b >= 0, c >= 0 else {
            return nil
        }
        self.init(a, b, c, prerelease: prerelease, build: build)
    }

    public var description: String {
        var s = "\(major).\(minor).\(patch)"
        if !prerelease.isEmpty { s += "-" + prerelease.joined(separator: ".") }
        if let build { s += "+" + build }
        return s
    }

    public static func == (a: Self, b: Self) -> Bool {
        (a.major, a.minor, a.patch) == (b.major, b.minor, b.patch) && a.prerelease == b.prerelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(major); hasher.combine(minor); hasher.combine(patch); hasher.combine(prerelease)
    }

    public static func < (a: Self, b: Self) -> Bool {
        if (a.major, a.minor, a.patch) != (b.major, b.minor, b.patch) {
            return (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
        }
        // A pre-release sorts before its release.
        switch (a.prerelease.isEmpty, b.prerelease.isEmpty) {
        case (true, true), (true, false): return false
        case (false, true): return true
        case (false, false): break
        }
        for (x, y) in zip(a.prerelease, b.prerelease) where x != y {
            switch (Int(x), Int(y)) {
            case let (i?, j?): return i < j
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return x < y
            }
        }
        return a.prerelease.count < b.prerelease.count
    }
}

/// A set of accepted versions, written the way package managers write them:
/// `*`, `1`, `1.2`, `1.x`, `^1.2.0`, `~1.2.3`, `=1.2.3`, `1.2.3`, `>=1.0 <2.0` (space-separated
/// comparators all apply).
public struct VersionRange: Sendable, Hashable, CustomStringConvertible {
    struct Bound: Sendable, Hashable {
        enum Op: String, Sendable { case lt = "<", le = "<=", gt = ">", ge = ">=", eq = "=" }
        let op: Op
        let version: SemanticVersion
        func admits(_ v: SemanticVersion) -> Bool {
            switch op {
            case .lt: return v < version
            case .le: return v <= version
            case .gt: return v > version
            case .ge: return v >= version
            case .eq: return v == version
            }
        }
    }

    /// The text it was parsed from.
    public let text: String
    let bounds: [Bound]

    /// Parses a range; `nil` if it is not one.
    public init?(_ text: String) {
        var bounds: [Bound] = []
        let terms = text.split(separator: " ").map(String.init)
        guard !terms.isEmpty else { return nil }
        for term in terms {
            guard let b = Self.parseTerm(term) else { return nil }
            bounds += b
        }
        self.text = text
        self.bounds = bounds
    }

    /// Whether `version` is in the range. Pre-releases are only in a range that names one.
    public func contains(_ version: SemanticVersion) -> Bool {
        bounds.allSatisfy { $0.admits(version) }
    }

    public var description: String { text }

    /// Parses one term into lower/upper bounds.
    static func parseTerm(_ term: String) -> [Bound]? {
        if term == "*" || term == "x" { return [] }
        for op in [Bound.Op.ge, .le, .gt, .lt, .eq] where term.hasPrefix(op.rawValue) {
            guard let v = partial(String(term.dropFirst(op.rawValue.count)))?.floor else { return nil }
            return [Bound(op: op, version: v)]
        }
        if term.hasPrefix("^") {
            guard let p = partial(String(term.dropFirst())) else { return nil }
            let upper = p.floor.major > 0 || p.count == 1
                ? SemanticVersion(p.floor.major + 1, 0, 0)
                : (p.floor.minor > 0 || p.count == 2 ? SemanticVersion(0, p.floor.minor + 1, 0) : SemanticVersion(0, 0, p.floor.patch + 1))
            return [Bound(op: .ge, version: p.floor), Bound(op: .lt, version: upper)]
        }
        if term.hasPrefix("~") {
            guard let p = partial(String(term.dropFirst())) else { return nil }
            let upper = p.count == 1 ? SemanticVersion(p.floor.major + 1, 0, 0) : SemanticVersion(p.floor.major, p.floor.minor + 1, 0)
            return [Bound(op: .ge, version: p.floor), Bound(op: .lt, version: upper)]
        }
        // A bare version: exact when complete, otherwise every version with that prefix.
        guard let p = partial(term) else { return nil }
        switch p.count {
        case 1: return [Bound(op: .ge, version: p.floor), Bound(op: .lt, version: SemanticVersion(p.floor.major + 1, 0, 0))]
        case 2: return [Bound(op: .ge, version: p.floor), Bound(op: .lt, version: SemanticVersion(p.floor.major, p.floor.minor + 1, 0))]
        default: return [Bound(op: .eq, version: p.floor)]
        }
    }

    /// `1`, `1.2`, `1.x`, `1.2.*`, `1.2.3[-pre]`: the lowest version it names and how many numbers it gave.
    static func partial(_ text: String) -> (floor: SemanticVersion, count: Int)? {
        if let full = SemanticVersion(text) { return (full, 3) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let numbers = parts.prefix { Int($0) != nil }.compactMap { Int($0) }
        let wild = parts.dropFirst(numbers.count)
        guard !numbers.isEmpty, numbers.count <= 2, wild.allSatisfy({ $0 == "x" || $0 == "*" }),
              numbers.count + wild.count <= 3 else { return nil }
        return (SemanticVersion(numbers[0], numbers.count > 1 ? numbers[1] : 0, 0), numbers.count)
    }
}
