import Foundation

/// A `termin` item of `getTerminyProStudenta` (spec §2.6.2); unknown keys are ignored, missing ones tolerated.
public struct ExamTerm: Decodable, Sendable {
    public let termIdno: Int
    public let predmet: String
    public let katedra: String
    public let datum: STAGValue?
    public let casOd: String?
    public let casDo: String?
    public let obsazeni: String?
    public let limit: String?
    public let mistnost: String?
    public let budova: String?
    public let zapsan: Bool?
    public let lzeZapsatOdepsat: Bool?
    public let deadlineDatumOdhlaseni: STAGValue?
    public let deadlineDatumPrihlaseni: STAGValue?
    public let zacatekPrihlasovani: STAGValue?
    public let textDuvoduProcNelzeZapsatOdepsat: String?

    /// `KMI/PRG`: terms are grouped by department and code (spec §2.6.2 GAP).
    public var subject: String { "\(katedra)/\(predmet)" }
    /// The capacity, nil when STAG says none (`null` or `"null"`).
    public var capacity: Int? { nonNull(limit).flatMap(Int.init) }
    /// The start instant: `datum` plus `casOd` (which carries seconds).
    public var start: Date? {
        guard let day = datum?.value, let time = casOd?.split(separator: ":").prefix(2).joined(separator: ":") else { return nil }
        return STAGValue.parse("\(day) \(time)")
    }
}

/// A `student_na_predmetu` item of `getZnamkyByStudent` (spec §2.6.3, snake_case keys).
public struct GradeRecord: Decodable, Sendable {
    public let katedra: String
    public let zkratka: String
    public let rok: String?
    public let semestr: String?
    public let zk_hodnoceni: String?
    public let zk_datum: String?
    public let zppzk_hodnoceni: String?
    public let zppzk_datum: String?

    public var subject: String { "\(katedra)/\(zkratka)" }
    /// The final grade, or the credit when there is no exam grade yet; nil when ungraded.
    public var grade: String? { nonNull(zk_hodnoceni) ?? nonNull(zppzk_hodnoceni) }
    public var date: String? { nonNull(zk_hodnoceni) != nil ? nonNull(zk_datum) : nonNull(zppzk_datum) }
}

/// A `predmetStudenta` item (spec §2.6.4).
public struct StudiedSubject: Decodable, Sendable {
    public let zkratka: String
    public let nazev: String?
    public let katedra: String
    public let rok: String?
    public let kredity: Int?
    public let uznano: String?
    public let statut: String?
    public var subject: String { "\(katedra)/\(zkratka)" }
}

/// Envelopes of the list services (their root keys, spec §2.4).
public struct TermList: Decodable, Sendable { public let termin: [ExamTerm]? }
public struct GradeList: Decodable, Sendable { public let student_na_predmetu: [GradeRecord]? }
public struct SubjectList: Decodable, Sendable { public let predmetStudenta: [StudiedSubject]? }

/// What an enrol/unenrol call's plain-text answer means (spec §2.1: `OK`, or the error text itself).
public enum EnrolAnswer: Equatable, Sendable {
    case ok
    case full(String)
    case deadlinePassed(String)
    case notOpenYet(String)
    case refused(String)

    public init(body: String) {
        let text = body.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = text.lowercased()
        if text == "OK" { self = .ok }
        else if lower.contains("obsazen") { self = .full(text) }
        else if lower.contains("vypršel") || lower.contains("deadline") { self = .deadlinePassed(text) }
        else if lower.contains("nezačalo") { self = .notOpenYet(text) }
        else { self = .refused(text) }
    }

    /// The reason code used in the module's `.unprocessable` errors.
    public var reasonCode: String? {
        switch self {
        case .ok: nil
        case .full: "term-full"
        case .deadlinePassed: "deadline-passed"
        case .notOpenYet: "registration-not-open"
        case .refused: "refused"
        }
    }
}
