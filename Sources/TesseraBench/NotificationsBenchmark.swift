import Foundation
import TesseraClock
import TesseraNotifications
import TesseraSDK

/// The notification benchmark: a million pending notifications in the host's store, then
/// - memory: resident memory and database bytes per pending notification;
/// - throughput of a plugin's schedule and cancel calls (each durable on return, one transaction);
/// - how late a notification fires on the system clock with the million pending.
struct NotificationsBenchmarkResult {
    var pending: Int
    var fillPerSecond: Double
    var residentBytesPerPending: Double
    var databaseBytesPerPending: Double
    var schedulePerSecond: Summary
    var cancelPerSecond: Summary
    var lateness: Summary
}

func notificationsBenchmark(pending: Int, scratch: String) async throws -> NotificationsBenchmarkResult {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let store = try NotificationStore(path: scratch + "/notifications.sqlite")
    let clock = SystemClockSource()
    let now = clock.now()

    // Fill: one-offs spread over the next year, in transactions of 10,000.
    let residentBefore = residentBytes()
    let fillStart = monotonicNanoseconds()
    var written = 0
    while written < pending {
        let batch = (written..<min(pending, written + 10_000)).map { i in
            ScheduledNotification(plugin: "bench", request: NotificationRequest(
                key: "n\(i)", title: "Take a breath", body: "Two minutes of slow breathing.", payload: ["step": .integer(Int64(i % 28))],
                schedule: .at(now.addingTimeInterval(3600 + Double(i) * 31.5))), nextDue: now.addingTimeInterval(3600 + Double(i) * 31.5))
        }
        try store.put(batch)
        written += batch.count
    }
    let fillSeconds = Double(monotonicNanoseconds() - fillStart) / 1e9
    let residentAfter = residentBytes()
    let fileBytes = fileSize(scratch + "/notifications.sqlite") + fileSize(scratch + "/notifications.sqlite-wal")

    // The host's timer loop on the system clock, with the notification scheduler as due work.
    let timerStore = try SQLiteTimerStore(path: scratch + "/host.sqlite")
    let timers = TimerScheduler(store: timerStore, clock: clock) { _, _ in .delivered }
    let scheduler = NotificationScheduler(store: store, clock: clock, settings: NotificationSettings(),
                                          scheduled: { timers.wakeup.kick() })
    timers.add(scheduler)
    let channel = scheduler.channel(plugin: "bench", permissions: ["maxPending": .integer(Int64(pending) * 2)])

    // Schedule and cancel through the plugin's capability, one call at a time.
    var schedules: [Double] = []
    var cancels: [Double] = []
    for round in 0..<5 {
        let keys = (0..<400).map { "round\(round)-\($0)" }
        let t0 = monotonicNanoseconds()
        for key in keys {
            try await channel.schedule(NotificationRequest(key: key, title: "t", body: "b", schedule: .at(now.addingTimeInterval(86_400))))
        }
        let t1 = monotonicNanoseconds()
        for key in keys { try await channel.cancel(key: key) }
        let t2 = monotonicNanoseconds()
        schedules.append(Double(keys.count) / (Double(t1 - t0) / 1e9))
        cancels.append(Double(keys.count) / (Double(t2 - t1) / 1e9))
    }

    // Lateness: 40 notifications due 20–60 ms apart, fired by the running loop.
    let loop = Task { await timers.run() }
    var lateness: [Double] = []
    for i in 0..<40 {
        let due = clock.now().addingTimeInterval(0.02 + Double(i % 3) * 0.02)
        try await channel.schedule(NotificationRequest(key: "late-\(i)", title: "t", body: "b", schedule: .at(due)))
        while true {
            if let entry = try store.inbox(limit: 1).first, entry.key == "late-\(i)" {
                lateness.append(entry.deliveredAt.timeIntervalSince(entry.dueAt) * 1e9)
                break
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
    loop.cancel()
    return NotificationsBenchmarkResult(
        pending: pending, fillPerSecond: Double(pending) / fillSeconds,
        residentBytesPerPending: Double(max(0, residentAfter - residentBefore)) / Double(pending),
        databaseBytesPerPending: Double(fileBytes) / Double(pending),
        schedulePerSecond: Summary(schedules), cancelPerSecond: Summary(cancels), lateness: Summary(lateness))
}

/// The process's resident memory, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}
