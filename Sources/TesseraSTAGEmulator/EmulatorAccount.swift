import Foundation

/// A person the emulator knows: a login name and password (for the HTTP Basic login), a name, and
/// the roles held — a student (`osCislo`), a teacher (`ucitIdno`), or both (a doctoral student who
/// also teaches: the spec's dual role).
public struct EmulatorAccount: Sendable, Equatable {
    public var userName: String
    public var password: String
    public var firstName: String
    public var lastName: String
    /// The student role's `osCislo`, if the person studies.
    public var studentNumber: String?
    /// The teacher role's `ucitIdno`, if the person teaches.
    public var teacherId: Int?
    /// The programme's type (`typSp`): B bachelor's, N follow-up master's, M master's, P doctoral.
    public var programmeType: String
    public var titleBefore: String?

    public init(userName: String, password: String = "heslo123", firstName: String, lastName: String, studentNumber: String? = nil,
                teacherId: Int? = nil, programmeType: String = "B", titleBefore: String? = nil) {
        self.userName = userName; self.password = password; self.firstName = firstName; self.lastName = lastName
        self.studentNumber = studentNumber; self.teacherId = teacherId; self.programmeType = programmeType; self.titleBefore = titleBefore
    }

    public var email: String { "\(userName.lowercased())@example.cz" }

    /// The built-in people: the student NOVAKJ, the teacher DVORAKP, and KRALM, a doctoral student
    /// who teaches a PRG exercise.
    public static let student = EmulatorAccount(userName: "NOVAKJ", firstName: "Jana", lastName: "Nováková", studentNumber: "A20B0001P")
    public static let teacher = EmulatorAccount(userName: "DVORAKP", firstName: "Petr", lastName: "Dvořák", teacherId: 4711, titleBefore: "RNDr.")
    public static let dual = EmulatorAccount(userName: "KRALM", firstName: "Martin", lastName: "Král", studentNumber: "A22P0003P",
                                             teacherId: 4712, programmeType: "P", titleBefore: "Ing.")

    /// `stagUserInfo`: one entry per role, as `help/getStagUserListForLoginTicketV2` lists them.
    var roles: [[String: Any]] {
        var roles: [[String: Any]] = []
        if let studentNumber {
            roles.append(["userName": userName, "role": "ST", "roleNazev": "Student", "fakulta": "PRF", "osCislo": studentNumber, "email": email])
        }
        if let teacherId {
            roles.append(["userName": userName, "role": "VY", "roleNazev": "Vyučující", "fakulta": "PRF", "katedra": "KMI",
                          "ucitIdno": teacherId, "email": email])
        }
        return roles
    }

    /// `help/getStagUserListForLoginTicketV2`'s answer.
    var userList: [String: Any] {
        ["jmeno": firstName, "prijmeni": lastName, "titulPred": titleBefore as Any? ?? NSNull(), "titulZa": NSNull(), "email": email,
         "stagUserInfo": roles]
    }

    /// `student/getStudentInfo`'s answer.
    var studentInfo: [String: Any] {
        ["osCislo": studentNumber ?? "", "jmeno": firstName, "prijmeni": lastName, "titulPred": titleBefore as Any? ?? NSNull(), "titulZa": NSNull(),
         "stav": "S", "userName": userName, "stprIdno": "12345", "nazevSp": programmeType == "P" ? "Informatika (doktorský)" : "Informatika",
         "fakultaSp": "PRF", "kodSp": programmeType == "P" ? "P1801" : "B1801", "formaSp": "P", "typSp": programmeType,
         "rocnik": programmeType == "P" ? "3" : "2", "email": email]
    }
}

/// Which of the built-in people the emulator's SSO logs in.
public enum EmulatorUser: String, Sendable {
    case student, teacher, dual

    var account: EmulatorAccount {
        switch self {
        case .student: .student
        case .teacher: .teacher
        case .dual: .dual
        }
    }
}
