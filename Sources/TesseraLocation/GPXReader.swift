import Foundation
import TesseraOnDemand

/// One point of a GPX file.
public struct GPXPoint: Sendable, Hashable {
    /// Which GPX element it came from.
    public enum Kind: Sendable, Hashable {
        /// `<trkpt>`: a recorded track point.
        case track
        /// `<rtept>`: a planned route point.
        case route
        /// `<wpt>`: a waypoint.
        case waypoint
    }

    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double
    /// `<ele>`: elevation in metres, if given.
    public var elevation: Double?
    /// `<time>`: when the point was recorded, if given.
    public var time: Date?
    /// Which element it came from.
    public var kind: Kind

    /// Creates a point.
    public init(latitude: Double, longitude: Double, elevation: Double? = nil, time: Date? = nil, kind: Kind = .track) {
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.time = time
        self.kind = kind
    }
}

/// The points of a GPX file, by kind, each in file order.
public struct GPXDocument: Sendable, Hashable {
    /// Every `<trkpt>` of every `<trk>` and `<trkseg>`, in order.
    public var trackPoints: [GPXPoint] = []
    /// Every `<rtept>` of every `<rte>`, in order.
    public var routePoints: [GPXPoint] = []
    /// Every `<wpt>`.
    public var waypoints: [GPXPoint] = []

    /// Creates an empty document.
    public init() {}

    /// What a replay plays: the track if there is one, else the route, else the waypoints.
    public var replayPoints: [GPXPoint] {
        !trackPoints.isEmpty ? trackPoints : !routePoints.isEmpty ? routePoints : waypoints
    }
}

/// Why a GPX file could not be read, with the line where it went wrong.
public struct GPXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line in the file (0 when it is about the file as a whole).
    public var line: Int
    /// What was wrong.
    public var message: String

    /// Creates an error.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// `GPX line N: message`.
    public var description: String { "GPX line \(line): \(message)" }
}

/// Reads GPX 1.0 and 1.1 files with Foundation's `XMLParser` (in the library loaded on first use,
/// ``OnDemandFoundation``): track, route and waypoint points with `lat`, `lon`, `<ele>` and
/// `<time>`. Everything else (names, extensions, metadata) is ignored.
///
/// A point without a valid `lat`/`lon`, or with an `<ele>` or `<time>` that cannot be read, is an
/// error rather than a silently dropped point: a replay with holes would mislead.
public struct GPXReader: Sendable {
    /// Creates a reader.
    public init() {}

    /// Reads a GPX file.
    public func read(contentsOf url: URL) throws(GPXError) -> GPXDocument {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw GPXError(line: 0, message: "cannot read \(url.path): \(error.localizedDescription)") }
        return try read(data)
    }

    /// Reads GPX text.
    public func read(_ data: Data) throws(GPXError) -> GPXDocument {
        let parsed: XMLEvents
        do { parsed = try XMLEvents(parsing: data) } catch { throw GPXError(line: 0, message: "cannot read GPX here: \(error)") }
        var collector = GPXCollector()
        for event in parsed.events where collector.error == nil { collector.take(event) }
        // On Linux, parse() may return true after libxml2 recovered from an error, so the
        // recorded errors are what decides.
        if let error = collector.error { throw error }
        if !parsed.parsed || parsed.errorCode != nil {
            throw GPXError(line: parsed.line, message: "not well-formed XML (\(describe(parsed.errorCode)))")
        }
        guard collector.sawRoot else { throw GPXError(line: 0, message: "no <gpx> element (the file is empty or not GPX)") }
        return collector.document
    }
}

/// Words for the XMLParser errors that malformed files usually hit (the Linux errors carry none).
private func describe(_ code: Int?) -> String {
    guard let code else { return "unknown error" }
    switch code {
    case 4: return "the document is empty"
    case 5: return "the document ends inside an element"
    case 76: return "an end tag does not match its start tag"
    case 38, 39, 41: return "an attribute is malformed"
    case let code: return "XMLParser error \(code)"
    }
}

/// Follows the element stack through the parser's events and builds points as their elements
/// close; stops at the first error (the caller feeds no more events).
private struct GPXCollector {
    var document = GPXDocument()
    var error: GPXError?
    var sawRoot = false
    private var depth = 0
    private var current: GPXPoint?
    private var text = ""

    private static let pointElements: [String: GPXPoint.Kind] = ["trkpt": .track, "rtept": .route, "wpt": .waypoint]

    mutating func take(_ event: XMLEvents.Event) {
        switch event {
        case .start(let name, let attributes, let line): start(name, attributes, line: line)
        case .text(let string): text += string
        case .end(let name, let line): end(name, line: line)
        case .error(let code, let line):
            if error == nil { error = GPXError(line: line, message: "not well-formed XML (\(describe(code)))") }
        }
    }

    private mutating func start(_ name: String, _ attributes: [String: String], line: Int) {
        depth += 1
        if depth == 1 {
            if name == "gpx" { sawRoot = true } else { fail(line, "the root element is <\(name)>, not <gpx>") }
            return
        }
        text = ""
        guard let kind = Self.pointElements[name] else { return }
        guard let lat = attributes["lat"].flatMap(Double.init), (-90...90).contains(lat),
              let lon = attributes["lon"].flatMap(Double.init), (-180...180).contains(lon)
        else {
            return fail(line, "<\(name)> needs lat (−90…90) and lon (−180…180), got lat=\(attributes["lat"] ?? "none") lon=\(attributes["lon"] ?? "none")")
        }
        current = GPXPoint(latitude: lat, longitude: lon, kind: kind)
    }

    private mutating func end(_ name: String, line: Int) {
        depth -= 1
        guard current != nil else { return }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "ele":
            guard let elevation = Double(value), elevation.isFinite else { return fail(line, "<ele> is not a number: \"\(value)\"") }
            current?.elevation = elevation
        case "time":
            guard let time = ISO8601Timestamp.parse(value) else { return fail(line, "<time> is not an ISO 8601 timestamp: \"\(value)\"") }
            current?.time = time
        case "trkpt", "rtept", "wpt":
            finishPoint()
        default:
            break
        }
    }

    private mutating func finishPoint() {
        guard let point = current else { return }
        switch point.kind {
        case .track: document.trackPoints.append(point)
        case .route: document.routePoints.append(point)
        case .waypoint: document.waypoints.append(point)
        }
        current = nil
    }

    /// Records the first error with the line it was found on.
    private mutating func fail(_ line: Int, _ message: String) {
        if error == nil { error = GPXError(line: line, message: message) }
    }
}
