import Foundation

/// A fault the emulator can be switched into, to test how a client copes.
public enum EmulatorFault: String, Sendable, CaseIterable {
    /// Answers normally.
    case none
    /// Answers every service call 503, as a university whose IS/STAG is down for maintenance.
    case down
    /// Waits `slowSeconds` before answering.
    case slow
    /// Answers every service call 401, as after the ticket expired.
    case unauthorized = "401"
    /// Answers every service call 500.
    case serverError = "500"
    /// Answers JSON services with a body that is not JSON.
    case malformed
}

/// An exam term as the emulator keeps it (rendered into STAG's `termin` JSON on the way out).
public struct EmulatorTerm: Sendable {
    public var id: Int
    public var department: String
    public var subject: String
    public var start: Date
    public var room: String
    public var building: String
    public var limit: Int
    public var registered: Set<String>
    public var otherStudents: Int
    public var registerBy: Date
    public var unregisterBy: Date
    /// When registering opens (`zacatekPrihlasovani`); `nil` renders as STAG's null.
    public var registerFrom: Date?

    /// A term of `department`/`subject` starting at `start`; registration closes a day before.
    public init(id: Int, department: String, subject: String, start: Date, room: String, building: String = "UC",
                limit: Int, registered: Set<String> = [], otherStudents: Int = 0, registerBy: Date? = nil, unregisterBy: Date? = nil,
                registerFrom: Date? = nil) {
        self.id = id; self.department = department; self.subject = subject; self.start = start
        self.room = room; self.building = building; self.limit = limit; self.registered = registered
        self.otherStudents = otherStudents
        self.registerBy = registerBy ?? start.addingTimeInterval(-86400)
        self.unregisterBy = unregisterBy ?? start.addingTimeInterval(-86400)
        self.registerFrom = registerFrom
    }
}

/// A grade as the emulator keeps it (rendered into `student_na_predmetu`).
public struct EmulatorGrade: Sendable {
    public var department: String
    public var subject: String
    public var grade: String
    public var date: Date
    /// The academic year (`2025` is 2025/26) and semester (`ZS`, `LS`).
    public var year: String
    public var semester: String
    public var attempt: Int
    /// The student's `osCislo`.
    public var student: String

    /// A grade for `department`/`subject` given on `date`.
    public init(department: String, subject: String, grade: String, date: Date, year: String = "2025", semester: String = "ZS",
                attempt: Int = 1, student: String = "A20B0001P") {
        self.department = department; self.subject = subject; self.grade = grade; self.date = date
        self.year = year; self.semester = semester; self.attempt = attempt; self.student = student
    }
}

/// A subject a student is enrolled in (rendered into `predmetStudenta`).
public struct EmulatorSubject: Sendable {
    public var department: String
    public var code: String
    public var name: String
    public var credits: Int
    public var year: String
    public var semester: String
    public var student: String

    public init(department: String, code: String, name: String, credits: Int, year: String = "2025", semester: String = "LS",
                student: String = "A20B0001P") {
        self.department = department; self.code = code; self.name = name; self.credits = credits
        self.year = year; self.semester = semester; self.student = student
    }
}

/// Everything the emulator remembers: its own settable time, issued tickets, terms and grades.
struct EmulatorState: Sendable {
    var now: Date
    var fault: EmulatorFault = .none
    var slowSeconds: Double = 2
    var tickets: [String: Date] = [:]
    /// Whose each ticket is (a login name).
    var ticketUsers: [String: String] = [:]
    /// Who the SSO logs in next (a login name).
    var loginUser = EmulatorAccount.student.userName
    var ticketLifetime: TimeInterval = 3600
    var accounts: [String: EmulatorAccount]
    var terms: [EmulatorTerm]
    var grades: [EmulatorGrade]
    var subjects: [EmulatorSubject]
    var requestCount = 0
    /// A fault that switches on once this many more service calls have been answered.
    var pendingFault: (after: Int, fault: EmulatorFault)?

    /// Counts a service call and answers the fault in force for it.
    mutating func admit() -> (EmulatorFault, Double) {
        requestCount += 1
        if let pending = pendingFault {
            if pending.after <= 0 { fault = pending.fault; pendingFault = nil } else { pendingFault = (pending.after - 1, pending.fault) }
        }
        return (fault, slowSeconds)
    }

    init(now: Date) {
        self.now = now
        terms = Fixtures.terms
        grades = Fixtures.grades
        subjects = Fixtures.subjects
        accounts = Dictionary(uniqueKeysWithValues: [EmulatorAccount.student, .teacher, .dual].map { ($0.userName, $0) })
    }

    /// Issues a ticket of 64 hex digits for `user` (the SSO's next login by default), valid for
    /// `ticketLifetime` from the emulator's time.
    mutating func issueTicket(for user: String? = nil) -> String {
        var ticket = ""
        for _ in 0..<32 { ticket += String(format: "%02x", UInt8.random(in: 0...255)) }
        tickets[ticket] = now.addingTimeInterval(ticketLifetime)
        ticketUsers[ticket] = user ?? loginUser
        return ticket
    }

    /// The person a valid ticket belongs to.
    func account(ofTicket ticket: String) -> EmulatorAccount? {
        guard isValid(ticket: ticket), let user = ticketUsers[ticket] else { return nil }
        return accounts[user]
    }

    func isValid(ticket: String) -> Bool {
        guard let expiry = tickets[ticket] else { return false }
        return expiry > now
    }

    /// Registers the student, answering with STAG's plain text ("OK" or the reason).
    mutating func register(student: String, term id: Int) -> String {
        guard let index = terms.firstIndex(where: { $0.id == id }) else { return "Termín neexistuje." }
        let term = terms[index]
        if term.registered.contains(student) { return "Student je již na termín zapsán." }
        if now > term.registerBy { return "Termín pro přihlašování již vypršel." }
        if let from = term.registerFrom, now < from { return "Přihlašování na termín ještě nebylo zahájeno." }
        if term.occupied >= term.limit { return "Termín je již plně obsazen." }
        terms[index].registered.insert(student)
        return "OK"
    }

    /// Unregisters the student: idempotent, as STAG is, except after the unregistering deadline.
    mutating func unregister(student: String, term id: Int) -> String {
        guard let index = terms.firstIndex(where: { $0.id == id }) else { return "Termín neexistuje." }
        guard terms[index].registered.contains(student) else { return "OK" }
        if now > terms[index].unregisterBy { return "Termín pro odhlašování již vypršel." }
        terms[index].registered.remove(student)
        return "OK"
    }
}

extension EmulatorTerm {
    /// Seats taken, the student's own included.
    var occupied: Int { otherStudents + registered.count }

    /// Whether `student` may register (or, if registered, unregister) at `now`, and if not, STAG's
    /// code and text (`kodDuvoduProcNelzeZapsatOdepsat`, `textDuvoduProcNelzeZapsatOdepsat`; the
    /// codes are the emulator's own: STAG's are not documented).
    func verdict(for student: String, at now: Date) -> (allowed: Bool, code: String, text: String?) {
        if registered.contains(student) {
            return now > unregisterBy ? (false, "ODHLASENI_PO_TERMINU", "Termín pro odhlašování již vypršel.") : (true, "OK", nil)
        }
        if let from = registerFrom, now < from { return (false, "PRIHLASOVANI_NEZAHAJENO", "Přihlašování na termín ještě nebylo zahájeno.") }
        if now > registerBy { return (false, "PRIHLASOVANI_PO_TERMINU", "Termín pro přihlašování již vypršel.") }
        if occupied >= limit { return (false, "KAPACITA", "Termín je již plně obsazen.") }
        return (true, "OK", nil)
    }
}
