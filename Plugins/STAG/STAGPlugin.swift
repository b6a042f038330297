import Foundation
import TesseraSDK

/// IS/STAG, the Czech universities' study information system: a student's timetable, exam terms
/// (with registering), grades, results and profile, a teacher's timetable and terms, cached for
/// offline use; a refresh job that notices new exam terms and grades; reminders; notes. The login
/// ticket is kept only as a secret.
package final class STAGPlugin: Plugin {
    package init() {}

    package var migrations: [StorageMigration] { Store.migrations }

    package func start(context: PluginContext) async throws {
        let store = Store(storage: try context.capability(.storage), clock: try context.capability(.clock), syncs: context.isGranted(.sync))
        let seconds = context.config["timeoutSeconds"]?.integerValue ?? 20
        let notifications = context.isGranted(.notifications) ? try context.capability(.notifications) : nil
        let expiry = LoginExpiry(store: store, notifications: notifications, log: context.log)
        let student = Student(store: store, http: try context.capability(.http), secrets: try context.capability(.secrets),
                              timeout: .seconds(seconds), emitsEvents: context.isGranted(.events), onUnauthorized: { await expiry.noticed() },
                              log: context.log)
        let refresher = Refresher(student: student, notifications: notifications, emitsEvents: context.isGranted(.events))
        registerLogin(context, student, refresher)
        registerStudent(context, student, refresher)
        registerTeacherAndNotes(context, Teacher(student: student), Notes(store: store), refresher.reminders)
        registerCatalogue(context, Catalogue(student: student))
        context.onOperation("overview", input: JSONValue.self) { _, _ in try await Overview(student: student).overview() }
        context.onOperation("refresh", input: JSONValue.self) { _, _ in try await refresher.run() }
        context.onTimer("refresh") { _ in _ = try await refresher.runScheduled() }
    }

    private func registerLogin(_ context: PluginContext, _ student: Student, _ refresher: Refresher) {
        context.onOperation("universities", input: JSONValue.self) { _, _ in
            JSONValue.array(Universities.all.map { ["id": .string($0.id), "name": .string($0.name), "baseURL": .string($0.base)] })
        }
        context.onOperation("login-url", input: LoginURL.self) { input, _ in try await student.loginURL(input) }
        // A login reads what the module needs at once (the initial sync), and plans the reminders.
        context.onOperation("complete-login", input: CompleteLogin.self) { input, _ in
            var answer = try await student.completeLogin(input)
            answer[set: "initialSync"] = await refresher.initialSync()
            return answer
        }
        context.onOperation("login-basic", input: BasicLogin.self) { input, _ in
            var answer = try await student.basicLogin(input)
            answer[set: "initialSync"] = await refresher.initialSync()
            return answer
        }
        context.onOperation("logout", input: JSONValue.self) { _, _ in
            try await refresher.reminders.cancelAll()  // the reminders were the last person's
            return try await student.logout()
        }
    }

    private func registerStudent(_ context: PluginContext, _ student: Student, _ refresher: Refresher) {
        context.onOperation("profile", input: JSONValue.self) { _, _ in try await student.profile() }
        context.onOperation("account", input: JSONValue.self) { _, _ in try await student.account() }
        context.onOperation("language-set", input: LanguageInput.self) { input, _ in try await student.setLanguage(input) }
        context.onOperation("subjects", input: JSONValue.self) { _, _ in try await student.subjects() }
        context.onOperation("grades", input: JSONValue.self) { _, _ in try await student.grades() }
        context.onOperation("results", input: JSONValue.self) { _, _ in try await student.results() }
        context.onOperation("exams", input: JSONValue.self) { _, _ in try await student.exams() }
        context.onOperation("exams-by-subject", input: JSONValue.self) { _, _ in try await student.examsBySubject() }
        // Registering changes which reminders apply (the exam instead of "registration closes"): re-planned at once.
        context.onOperation("exam-register", input: TermInput.self) { input, _ in
            let answer = try await student.enrol(input.termId, register: true)
            try await refresher.reminders.rescheduleFromCache()
            return answer
        }
        context.onOperation("exam-unregister", input: TermInput.self) { input, _ in
            let answer = try await student.enrol(input.termId, register: false)
            try await refresher.reminders.rescheduleFromCache()
            return answer
        }
        context.onOperation("timetable", input: TimetableInput.self) { input, _ in try await student.timetable(input) }
    }

    /// A subject's details, a teacher's theses, the canteen (Catalogue.swift).
    private func registerCatalogue(_ context: PluginContext, _ catalogue: Catalogue) {
        context.onOperation("subject-info", input: SubjectInfoInput.self) { input, _ in try await catalogue.subjectInfo(input) }
        context.onOperation("theses", input: ThesesInput.self) { input, _ in try await catalogue.theses(input) }
        context.onOperation("canteen", input: CanteenInput.self) { input, _ in try await catalogue.canteen(input) }
    }

    private func registerTeacherAndNotes(_ context: PluginContext, _ teacher: Teacher, _ notes: Notes, _ reminders: Reminders) {
        context.onOperation("teacher-timetable", input: TimetableInput.self) { input, _ in try await teacher.timetable(input) }
        context.onOperation("teacher-exams", input: JSONValue.self) { _, _ in try await teacher.exams() }
        context.onOperation("subject-students", input: SubjectInput.self) { input, _ in try await teacher.subjectStudents(input) }
        context.onOperation("class-students", input: ClassInput.self) { input, _ in try await teacher.classStudents(input) }
        context.onOperation("notes", input: NoteFilter.self) { input, _ in try await notes.list(subject: input.subject) }
        // A note's day is a reminder's moment: re-planned at once, as after registering.
        context.onOperation("note-save", input: Notes.Input.self) { input, _ in
            let answer = try await notes.save(input)
            try await reminders.rescheduleFromCache()
            return answer
        }
        context.onOperation("note-delete", input: NoteID.self) { input, _ in
            let answer = try await notes.delete(input.id)
            try await reminders.rescheduleFromCache()
            return answer
        }
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
