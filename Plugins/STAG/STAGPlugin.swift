import Foundation
import TesseraSDK

/// IS/STAG, the Czech universities' study information system: a student's timetable, exam terms
/// (with registering), grades, subjects and profile, cached for offline use; a refresh job that
/// notices new exam terms and grades. The login ticket is kept only as a secret.
package final class STAGPlugin: Plugin {
    package init() {}

    package var migrations: [StorageMigration] { Store.migrations }

    package func start(context: PluginContext) async throws {
        let store = Store(storage: try context.capability(.storage), clock: try context.capability(.clock))
        let seconds = context.config["timeoutSeconds"]?.integerValue ?? 20
        let student = Student(store: store, http: try context.capability(.http), secrets: try context.capability(.secrets),
                              timeout: .seconds(seconds), emitsEvents: context.isGranted(.events))
        let notifications = context.isGranted(.notifications) ? try context.capability(.notifications) : nil
        let refresher = Refresher(student: student, notifications: notifications, emitsEvents: context.isGranted(.events))
        registerTeacherAndNotes(context, Teacher(student: student), Notes(store: store), refresher.reminders)
        context.onOperation("universities", input: JSONValue.self) { _, _ in
            JSONValue.array(Universities.all.map { ["id": .string($0.id), "name": .string($0.name), "baseURL": .string($0.base)] })
        }
        context.onOperation("login-url", input: LoginURL.self) { input, _ in try await student.loginURL(input) }
        context.onOperation("complete-login", input: CompleteLogin.self) { input, _ in
            let answer = try await student.completeLogin(input)
            try await refresher.reminders.reschedule(exams: [])  // the ticket's expiry
            return answer
        }
        context.onOperation("login-basic", input: BasicLogin.self) { input, _ in
            let answer = try await student.basicLogin(input)
            try await refresher.reminders.reschedule(exams: [])
            return answer
        }
        context.onOperation("logout", input: JSONValue.self) { _, _ in try await student.logout() }
        context.onOperation("profile", input: JSONValue.self) { _, _ in try await student.profile() }
        context.onOperation("subjects", input: JSONValue.self) { _, _ in try await student.subjects() }
        context.onOperation("grades", input: JSONValue.self) { _, _ in try await student.grades() }
        context.onOperation("exams", input: JSONValue.self) { _, _ in try await student.exams() }
        context.onOperation("exam-register", input: TermInput.self) { input, _ in try await student.enrol(input.termId, register: true) }
        context.onOperation("exam-unregister", input: TermInput.self) { input, _ in try await student.enrol(input.termId, register: false) }
        context.onOperation("timetable", input: TimetableInput.self) { input, _ in try await student.timetable(input) }
        context.onOperation("refresh", input: JSONValue.self) { _, _ in try await refresher.run() }
        context.onTimer("refresh") { _ in _ = try await refresher.run() }
    }

    private func registerTeacherAndNotes(_ context: PluginContext, _ teacher: Teacher, _ notes: Notes, _ reminders: Reminders) {
        context.onOperation("teacher-timetable", input: TimetableInput.self) { input, _ in try await teacher.timetable(input) }
        context.onOperation("teacher-exams", input: JSONValue.self) { _, _ in try await teacher.exams() }
        context.onOperation("subject-students", input: SubjectInput.self) { input, _ in try await teacher.subjectStudents(input) }
        context.onOperation("notes", input: NoteFilter.self) { input, _ in try await notes.list(subject: input.subject) }
        context.onOperation("note-save", input: Notes.Input.self) { input, _ in try await notes.save(input) }
        context.onOperation("note-delete", input: NoteID.self) { input, _ in try await notes.delete(input.id) }
        context.onOperation("notifications-status", input: JSONValue.self) { _, _ in try await reminders.status() }
        context.onOperation("notifications-configure", input: JSONValue.self) { input, _ in try await reminders.configure(input.objectValue ?? [:]) }
    }
}

struct NoteFilter: Decodable, Sendable { let subject: String? }
struct NoteID: Decodable, Sendable { let id: String }

struct LoginURL: Decodable, Sendable { let university: String?; let baseURL: String?; let returnURL: String; let longTicket: Bool? }
struct BasicLogin: Decodable, Sendable { let university: String?; let baseURL: String?; let userName: String; let password: String }
struct CompleteLogin: Decodable, Sendable { let university: String?; let baseURL: String?; let ticket: String; let longTicket: Bool? }
struct TermInput: Decodable, Sendable { let termId: Int64 }
struct TimetableInput: Decodable, Sendable { let date: String?; let day: Bool? }
