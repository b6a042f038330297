import Foundation
import Synchronization

/// A fault the emulator injects into every REST answer until cleared (for tests of a client's fault handling).
public enum EmulatorFault: String, Sendable, CaseIterable {
    case none, down, slow, unauthorized = "401", serverError = "500", malformed
}

/// One exam term's enrolment state (spec §2.7): capacity, the registration window and the unregister deadline.
struct TermState: Sendable {
    var termIdno: Int
    var katedra: String
    var predmet: String
    var datum: String          // d.M.yyyy
    var casOd: String          // HH:mm:ss
    var casDo: String
    var limit: Int?
    var opensAt: Date?         // zacatekPrihlasovani
    var registerDeadline: Date // deadlineDatumPrihlaseni
    var unregisterDeadline: Date // deadlineDatumOdhlaseni
    var enrolled: Set<String>
    var room: String
}

/// A ticket the emulator issued, with its expiry on the emulator's clock.
struct Ticket: Sendable {
    var userName: String
    var expires: Date
}

/// The emulator's mutable world: its settable clock, issued tickets, terms and the injected fault.
public final class EmulatorState: Sendable {
    struct World: Sendable {
        var now: Date
        var tickets: [String: Ticket] = [:]
        var terms: [Int: TermState]
        var fault: EmulatorFault = .none
    }
    let world: Mutex<World>
    /// Accepted login name and password for HTTP Basic.
    public let basicUser = "A21B0123P"
    public let basicPassword = "heslo"
    /// Lifetimes (spec §2.2): a long SSO ticket lasts 90 days, a Basic cookie a few hours.
    static let longTicketLifetime: TimeInterval = 90 * 86_400
    static let shortTicketLifetime: TimeInterval = 4 * 3_600

    public init(now: Date) {
        world = Mutex(World(now: now, terms: Fixtures.terms()))
    }

    public var now: Date { world.withLock { $0.now } }
    public func setNow(_ date: Date) { world.withLock { $0.now = date } }
    public var fault: EmulatorFault { world.withLock { $0.fault } }
    public func setFault(_ fault: EmulatorFault) { world.withLock { $0.fault = fault } }

    /// Issues a fresh 64-hex ticket for `userName`.
    func issueTicket(userName: String, long: Bool) -> String {
        var generator = SystemRandomNumberGenerator()
        let ticket = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        world.withLock {
            $0.tickets[ticket] = Ticket(userName: userName,
                                        expires: $0.now.addingTimeInterval(long ? Self.longTicketLifetime : Self.shortTicketLifetime))
        }
        return ticket
    }

    /// The user a valid, unexpired ticket belongs to, or nil.
    func user(forTicket ticket: String) -> String? {
        world.withLock { world in
            guard let entry = world.tickets[ticket], entry.expires > world.now else { return nil }
            return entry.userName
        }
    }

    /// Enrols `osCislo` in a term; returns "OK" or STAG's Czech reason text (spec §2.7).
    func enrol(termIdno: Int, osCislo: String) -> String {
        world.withLock { world in
            guard var term = world.terms[termIdno] else { return "Termín neexistuje." }
            if term.enrolled.contains(osCislo) { return "Student je již na termín zapsán." }
            if let opens = term.opensAt, world.now < opens { return "Přihlašování na termín ještě nezačalo." }
            if world.now > term.registerDeadline { return "Termín pro přihlášení již vypršel." }
            if let limit = term.limit, term.enrolled.count >= limit { return "Termín je již plně obsazen." }
            let other = world.terms.values.contains {
                $0.termIdno != termIdno && $0.katedra == term.katedra && $0.predmet == term.predmet && $0.enrolled.contains(osCislo)
            }
            if other { return "Student je již zapsán na jiný termín tohoto předmětu." }
            term.enrolled.insert(osCislo)
            world.terms[termIdno] = term
            return "OK"
        }
    }

    /// Unenrols; idempotent like the real service, refused after the unregister deadline.
    func unenrol(termIdno: Int, osCislo: String) -> String {
        world.withLock { world in
            guard var term = world.terms[termIdno] else { return "Termín neexistuje." }
            guard term.enrolled.contains(osCislo) else { return "OK" }
            if world.now > term.unregisterDeadline { return "Termín pro odhlášení již vypršel." }
            term.enrolled.remove(osCislo)
            world.terms[termIdno] = term
            return "OK"
        }
    }

    func termsSnapshot() -> ([TermState], Date) { world.withLock { (Array($0.terms.values).sorted { $0.termIdno < $1.termIdno }, $0.now) } }
}
