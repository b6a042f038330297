import Foundation
import TesseraSDK

/// The stress-management programme, the port of the thesis's "Nestresuju" (specs/stress-program.md):
/// consent and cancellation, the four-week programme with its gates, the diary, the library and
/// about pages from a versioned content pack, the dashboard, reminders, and a nudge the evening
/// before an exam when the IS/STAG module is enabled. docs/stress.md lists every operation.
package final class StressPlugin: Plugin {
    package init() {}

    // Every NOT NULL column has a default and there are no UNIQUE or foreign keys, so that the
    // tables can be synced across the participant's devices (docs/sync.md).
    package var migrations: [StorageMigration] {
        [StorageMigration(version: 1, sql: """
            CREATE TABLE participant (id TEXT PRIMARY KEY, state TEXT NOT NULL DEFAULT 'registered', consent_version TEXT NOT NULL DEFAULT '',
                consent_at TEXT NOT NULL DEFAULT '', revoked_at TEXT NOT NULL DEFAULT '');
            CREATE TABLE settings (id TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '');
            CREATE TABLE progress (id TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '');
            CREATE TABLE answers (id TEXT PRIMARY KEY, form TEXT NOT NULL DEFAULT '', question_id INTEGER NOT NULL DEFAULT 0,
                value_num INTEGER, value_text TEXT, saved_at TEXT NOT NULL DEFAULT '');
            CREATE TABLE submissions (id TEXT PRIMARY KEY, submitted_at TEXT NOT NULL DEFAULT '', data TEXT NOT NULL DEFAULT '{}');
            CREATE TABLE evaluations (id TEXT PRIMARY KEY, week INTEGER NOT NULL DEFAULT 0, feasibility INTEGER NOT NULL DEFAULT 0,
                difficulty INTEGER NOT NULL DEFAULT 0, note TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '');
            CREATE TABLE relaxation_sessions (id TEXT PRIMARY KEY, started_at TEXT NOT NULL DEFAULT '', stopped_at TEXT NOT NULL DEFAULT '',
                seconds INTEGER NOT NULL DEFAULT 0, completes_week INTEGER NOT NULL DEFAULT 0, capped INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE diary (id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'stress', level INTEGER, question_id INTEGER, question_text TEXT,
                text TEXT NOT NULL DEFAULT '', local_day TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL DEFAULT '');
            CREATE INDEX diary_by_day ON diary (local_day, kind);
            CREATE TABLE feedback (id TEXT PRIMARY KEY, text TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '');
            CREATE TABLE content (id TEXT PRIMARY KEY, version INTEGER NOT NULL DEFAULT 0, json TEXT NOT NULL DEFAULT '');
            """)]
    }

    package func start(context: PluginContext) async throws {
        let study = Study(storage: try context.capability(.storage), clock: try context.capability(.clock),
                          notifications: context.isGranted(.notifications) ? try context.capability(.notifications) : nil,
                          config: StudyConfig(context.config))
        let serial = Serial()
        let ops = Registrar(context: context, serial: serial)
        registerAccount(ops, study)
        registerProgramme(ops, study)
        registerDiary(ops, study)
        registerContent(ops, study)
        context.onTimer(Study.capTimer) { _ in try await serial.run { try await study.relaxationCapReached() } }
        context.onEvent(Study.examEvent) { event in try await serial.run { try await study.examUpcoming(event.payload) } }
        // Another of the participant's devices changed the records (a week completed, a diary
        // record, the account cancelled): this device's reminders follow.
        context.onRemoteChanges { _ in try await serial.run { try await study.reschedule() } }
        try await serial.run { try await study.reschedule() }  // the config (delay, deadline) may have changed since the last run
    }

    private func registerAccount(_ ops: Registrar, _ study: Study) {
        ops.read("account-state", Empty.self) { _ in try await study.accountStatus() }
        ops.change("consent-give", Study.ConsentInput.self) { try await study.giveConsent($0) }
        ops.change("account-cancel", Confirm.self) { try await study.cancelAccount(confirm: $0.confirm == true) }
        ops.read("settings-get", Empty.self) { _ in _ = try await study.activeSnapshot(); return try await study.settings() }
        ops.change("settings-set", Study.SettingsInput.self) { try await study.setSettings($0) }
        ops.read("reminders", Empty.self) { _ in try await study.reminderStatus() }
        ops.change("deadline-set", LastDay.self) { try await study.setDeadline(lastDay: $0.lastDay) }
        ops.change("feedback-submit", TextInput.self) { try await study.submitFeedback(text: $0.text) }
    }

    private func registerProgramme(_ ops: Registrar, _ study: Study) {
        ops.read("programme", Empty.self) { _ in try await study.overview() }
        ops.read("programme-week", Order.self) { try await study.openWeek($0.order) }
        ops.read("questionnaire", Kind.self) { try await study.questionnaire(kind: $0.kind) }
        ops.change("questionnaire-submit", Study.QuestionnaireInput.self) { try await study.submitQuestionnaire($0) }
        ops.change("week-evaluate", Study.EvaluationInput.self) { try await study.evaluate($0) }
        ops.change("goal-save", Study.DraftInput.self) { try await study.saveDraft(order: 0, $0) }
        ops.change("goal-complete", Study.CompleteInput.self) { try await study.completeForm(order: 0, $0) }
        ops.change("relaxation-intro-read", Empty.self) { _ in try await study.markIntroRead() }
        ops.change("relaxation-start", Empty.self) { _ in try await study.startRelaxation() }
        ops.change("relaxation-stop", Empty.self) { _ in try await study.stopRelaxation() }
        ops.read("relaxation-status", Empty.self) { _ in try await study.relaxationStatus() }
        ops.change("time-management-save", Study.DraftInput.self) { try await study.saveDraft(order: 2, $0) }
        ops.change("time-management-complete", Study.CompleteInput.self) { try await study.completeForm(order: 2, $0) }
        ops.change("meaning-complete", Study.MeaningInput.self) { try await study.completeMeaning($0) }
        ops.read("week-summary", Order.self) { try await study.summary(order: $0.order) }
        ops.change("exit-evaluation-submit", Study.ExitEvaluation.self) { try await study.submitExitEvaluation($0) }
        ops.read("dashboard", Seed.self) { try await study.dashboard(seed: $0.seed) }
    }

    private func registerDiary(_ ops: Registrar, _ study: Study) {
        ops.read("diary-prompt", Seed.self) { try await study.prompt(seed: $0.seed) }
        ops.change("diary-record", Study.StressInput.self) { try await study.recordStress($0) }
        ops.change("diary-note", Study.NoteInput.self) { try await study.addNote($0) }
        ops.change("diary-edit", Study.EditInput.self) { try await study.editEntry($0) }
        ops.change("diary-note-delete", Study.DeleteInput.self) { try await study.deleteNote($0) }
        ops.read("diary-list", Study.ListInput.self) { DiaryList(days: try await study.diary($0)) }
    }

    private func registerContent(_ ops: Registrar, _ study: Study) {
        ops.read("library", OptionalID.self) { try await study.library($0.id) }
        ops.read("about-team", Empty.self) { _ in try await study.team() }
        ops.read("about-research", Empty.self) { _ in try await study.research() }
        ops.read("about-tech", Empty.self) { _ in try await study.techInfo() }
        ops.read("content-version", Since.self) { try await study.contentVersion(since: $0.since) }
        ops.change("content-publish", Pack.self) { try await study.publishContent($0.pack) }
    }
}

/// Registers operations: reads as they come, changes one at a time (Serial.swift says why).
struct Registrar {
    let context: PluginContext
    let serial: Serial

    func read<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String, _ input: Input.Type, _ body: @escaping @Sendable (Input) async throws -> Output
    ) {
        context.onOperation(name, input: input) { value, _ in try await body(value) }
    }

    func change<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String, _ input: Input.Type, _ body: @escaping @Sendable (Input) async throws -> Output
    ) {
        let serial = serial
        context.onOperation(name, input: input) { value, _ in try await serial.run { try await body(value) } }
    }
}

struct Empty: Decodable, Sendable {}
struct Confirm: Decodable, Sendable { var confirm: Bool? }
struct LastDay: Decodable, Sendable { var lastDay: String }
struct TextInput: Decodable, Sendable { var text: String }
struct Order: Decodable, Sendable { var order: Int }
struct Kind: Decodable, Sendable { var kind: String }
struct Seed: Decodable, Sendable { var seed: UInt64? }
struct OptionalID: Decodable, Sendable { var id: String? }
struct Since: Decodable, Sendable { var since: Int? }
struct Pack: Decodable, Sendable { var pack: JSONValue }
struct DiaryList: Encodable, Sendable { var days: [Study.DiaryDay] }
