import Foundation
import Synchronization
import TesseraClock
import TesseraLocation
import TesseraSDK

/// Fixes per second through `LocationFeed.ingest` to one subscriber that measures each fix's
/// distance to a 500-point route (`GeoPolyline`), the work of an "are they still on the way?" plugin.
///
/// The input is made before the clock starts: `fixes` fixes of 10 devices moving along a wandering
/// 500-point route (steps of 30–300 m, about 80 km) and up to ~500 m off it, in timestamp order,
/// cut into batches of `batchSize`. Each round ingests them all into a fresh feed (a feed remembers
/// every device's newest fix, so a second pass would be refused as out of order). Returns the fixes
/// per second of each round, and of the distance queries alone for comparison.
func locationBenchmark(fixes: Int, batchSize: Int, rounds: Int) async -> (feed: [Double], geodesyOnly: [Double]) {
    var random = SplitMix64(seed: 42)
    let route = benchRoute(points: 500, random: &random)
    let polyline = GeoPolyline(route)
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let all = benchFixes(count: fixes, along: route, start: start, random: &random)
    let batches = stride(from: 0, to: all.count, by: batchSize).map { Array(all[$0..<min($0 + batchSize, all.count)]) }
    let clock = VirtualClockSource(start: start.addingTimeInterval(Double(fixes)))

    var feedRates: [Double] = []
    var geodesyRates: [Double] = []
    for _ in 0..<rounds {
        let total = Mutex(0.0)
        let feed = LocationFeed(clock: clock)
        feed.subscribe("route-watch") { fix in
            let d = polyline.distance(from: fix.coordinate) ?? 0
            total.withLock { $0 += d }
        }
        let t = monotonicNanoseconds()
        var accepted = 0
        for batch in batches { accepted += await feed.ingest(batch).accepted }
        feedRates.append(Double(accepted) / (Double(monotonicNanoseconds() - t) / 1e9))
        precondition(accepted == fixes, "the benchmark's fixes should all be accepted, \(accepted) of \(fixes) were")

        let g = monotonicNanoseconds()
        var sum = 0.0
        for fix in all { sum += polyline.distance(from: fix.coordinate) ?? 0 }
        geodesyRates.append(Double(all.count) / (Double(monotonicNanoseconds() - g) / 1e9))
        // Use the sums, so neither loop can be optimised away.
        if sum < 0 || total.withLock({ $0 }) < 0 { print("impossible") }
    }
    return (feedRates, geodesyRates)
}

/// A wandering route of short steps starting in Brno.
private func benchRoute(points: Int, random: inout SplitMix64) -> [GeoPoint] {
    var route = [GeoPoint(latitude: 49.1951, longitude: 16.6068)]
    var heading = 0.7
    while route.count < points {
        heading += random.uniform(-0.5, 0.5)
        let step = random.uniform(30, 300) / 111_200
        let last = route[route.count - 1]
        route.append(GeoPoint(latitude: last.latitude + step * cos(heading),
                              longitude: last.longitude + step * sin(heading) / cos(last.latitude * .pi / 180)))
    }
    return route
}

/// `count` fixes, one a second, from 10 devices near random points of the route.
private func benchFixes(count: Int, along route: [GeoPoint], start: Date, random: inout SplitMix64) -> [LocationFix] {
    (0..<count).map { i in
        let near = route[Int(random.next() % UInt64(route.count))]
        return LocationFix(latitude: near.latitude + random.uniform(-0.0045, 0.0045),
                           longitude: near.longitude + random.uniform(-0.007, 0.007),
                           accuracy: 8, speed: 1.4, timestamp: start.addingTimeInterval(Double(i)), deviceID: "device-\(i % 10)")
    }
}

extension SplitMix64 {
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
