import Foundation
import TesseraSDK

/// Every operation of the manifest, bound to the area that serves it. The host has checked each
/// input against the manifest's schema before a handler runs; the areas check the rest (ranges,
/// dates, references, permissions) before writing anything.
enum BabyOperations {
    static func registerChildren(_ context: PluginContext, _ diary: Diary) {
        context.onDiary(diary, "profile-set", input: ProfileInput.self) { input, _ in try await diary.setProfile(person: input.person, name: input.name) }
        context.onDiary(diary, "child-create", input: Diary.NewChild.self) { input, _ in try await diary.createChild(input) }
        context.onDiary(diary, "children-list", input: NoInput.self) { _, _ in try await diary.listChildren() }
        context.onDiary(diary, "child-get", input: IDInput.self) { input, _ in try await diary.childProfile(input.id) }
        context.onDiary(diary, "child-update", input: Diary.ChildChange.self) { input, _ in try await diary.updateChild(input) }
        context.onDiary(diary, "child-delete", input: IDInput.self) { input, _ in
            try await diary.deleteChild(input.id)
            return Done(ok: true)
        }
    }

    static func registerHealthCard(_ context: PluginContext, _ diary: Diary) {
        context.onDiary(diary, "insurers-list", input: NoInput.self) { _, _ in diary.insurers() }
        context.onDiary(diary, "health-card-set", input: Diary.CardChange.self) { input, _ in try await diary.setCard(input) }
        context.onDiary(diary, "allergy-add", input: Diary.NewAllergy.self) { input, _ in try await diary.addAllergy(input) }
        context.onDiary(diary, "disease-add", input: Diary.NewDisease.self) { input, _ in try await diary.addDisease(input) }
        context.onDiary(diary, "vaccination-add", input: Diary.NewVaccination.self) { input, _ in try await diary.addVaccination(input) }
        context.onDiary(diary, "health-item-update", input: Diary.ItemChange.self) { input, _ in try await diary.updateItem(input) }
        context.onDiary(diary, "health-item-delete", input: IDInput.self) { input, _ in
            try await diary.deleteItem(input.id)
            return Done(ok: true)
        }
    }

    static func registerRecords(_ context: PluginContext, _ diary: Diary) {
        context.onDiary(diary, "measurement-add", input: Diary.NewMeasurement.self) { input, _ in try await diary.addMeasurement(input) }
        context.onDiary(diary, "measurements", input: Diary.SeriesInput.self) { input, _ in try await diary.measurementSeries(input) }
        context.onDiary(diary, "growth", input: Diary.GrowthInput.self) { input, _ in try await diary.growth(input) }
        context.onDiary(diary, "milestone-add", input: Diary.NewMilestone.self) { input, _ in try await diary.addMilestone(input) }
        context.onDiary(diary, "post-add", input: Diary.NewPost.self) { input, _ in try await diary.addPost(input) }
        context.onDiary(diary, "record-get", input: IDInput.self) { input, _ in try await diary.record(input.id) }
        context.onDiary(diary, "record-update", input: Diary.RecordChange.self) { input, _ in try await diary.updateRecord(input) }
        context.onDiary(diary, "record-delete", input: IDInput.self) { input, _ in
            try await diary.deleteRecord(input.id)
            return Done(ok: true)
        }
        context.onDiary(diary, "photo-put", input: Diary.InlinePhoto.self) { input, _ in try await diary.putPhoto(base64: input.data) }
        context.onDiary(diary, "photo-upload", input: Diary.UploadedPhoto.self) { input, _ in diary.uploadedPhoto(input.file) }
        context.onDiary(diary, "photo-get", input: Diary.PhotoAddress.self) { input, _ in try await diary.photoForDownload(input.address) }
        context.onDiary(diary, "suggestions", input: SuggestionInput.self) { input, _ in try await diary.suggestions(field: input.field, prefix: input.prefix, language: input.language) }
    }

    static func registerCare(_ context: PluginContext, _ diary: Diary) {
        context.onDiary(diary, "care-start", input: Diary.CareStart.self) { input, _ in try await diary.startCare(input) }
        context.onDiary(diary, "care-stop", input: Diary.CareStop.self) { input, _ in try await diary.stopCare(input) }
        context.onDiary(diary, "care-add", input: Diary.CareEntryInput.self) { input, _ in try await diary.addCare(input) }
        context.onDiary(diary, "care-update", input: Diary.CareChange.self) { input, _ in try await diary.updateCare(input) }
        context.onDiary(diary, "care-delete", input: IDInput.self) { input, _ in
            try await diary.deleteCare(input.id)
            return Done(ok: true)
        }
        context.onDiary(diary, "care-list", input: Diary.CareListInput.self) { input, _ in try await diary.careList(input) }
        context.onDiary(diary, "care-summary", input: Diary.CareSummaryInput.self) { input, _ in try await diary.careSummary(input) }
        context.onDiary(diary, "care-import", input: Diary.CareImportInput.self) { input, _ in try await diary.importCare(input) }
    }

    static func registerHealthProblems(_ context: PluginContext, _ diary: Diary) {
        context.onDiary(diary, "problem-open", input: Diary.NewProblem.self) { input, _ in try await diary.openProblem(input) }
        context.onDiary(diary, "problem-close", input: Diary.ProblemEnd.self) { input, _ in try await diary.closeProblem(input) }
        context.onDiary(diary, "problem-get", input: IDInput.self) { input, _ in try await diary.problemDetail(input.id) }
        context.onDiary(diary, "symptom-add", input: Diary.NewSymptom.self) { input, _ in try await diary.addSymptom(input) }
        context.onDiary(diary, "temperature-add", input: Diary.NewTemperature.self) { input, _ in try await diary.addTemperature(input) }
        context.onDiary(diary, "visit-add", input: Diary.NewVisit.self) { input, _ in try await diary.addVisit(input) }
        context.onDiary(diary, "medication-add", input: Diary.NewMedication.self) { input, _ in try await diary.addMedication(input) }
        context.onDiary(diary, "medication-notify", input: Diary.NotifyInput.self) { input, _ in try await diary.setMedicationNotify(input) }
        context.onDiary(diary, "record-assign", input: Diary.Assignment.self) { input, _ in try await diary.assign(input) }
        context.onDiary(diary, "reminder-set", input: Diary.ReminderInput.self) { input, _ in try await diary.setReminder(input) }
        context.onDiary(diary, "reminders-list", input: NoInput.self) { _, _ in try await diary.listReminders() }
    }

    static func registerViews(_ context: PluginContext, _ diary: Diary) {
        context.onDiary(diary, "timeline", input: Diary.TimelineInput.self) { input, _ in try await diary.timeline(input) }
        context.onDiary(diary, "calendar-month", input: Diary.MonthInput.self) { input, _ in try await diary.calendarMonth(input) }
        context.onDiary(diary, "calendar-day", input: Diary.DayInput.self) { input, _ in try await diary.calendarDay(input) }
        context.onDiary(diary, "contact-add", input: Diary.NewContact.self) { input, _ in try await diary.addContact(input) }
        context.onDiary(diary, "contact-update", input: Diary.ContactChange.self) { input, _ in try await diary.updateContact(input) }
        context.onDiary(diary, "contact-delete", input: IDInput.self) { input, _ in
            try await diary.deleteContact(input.id)
            return Done(ok: true)
        }
        context.onDiary(diary, "contacts-list", input: ContactsFilter.self) { input, _ in try await diary.contacts(childID: input.childId, kind: input.kind) }
        context.onDiary(diary, "contact-vcard", input: IDInput.self) { input, _ in try await diary.contactVCard(input.id) }
        context.onDiary(diary, "export", input: Diary.ExportInput.self) { input, call in try await diary.export(input, by: call.principal.id) }
        context.onDiary(diary, "export-download", input: Diary.ExportDownload.self) { input, call in
            try await diary.exportForDownload(input.address, by: call.principal.id)
        }
    }

    static func registerSharing(_ context: PluginContext, _ diary: Diary) {
        context.onDiary(diary, "share-invite", input: Diary.Invite.self) { input, _ in try await diary.invite(input) }
        context.onDiary(diary, "invitations-list", input: NoInput.self) { _, _ in try await diary.invitations() }
        context.onDiary(diary, "invitation-accept", input: Diary.InvitationRef.self) { input, _ in try await diary.accept(input) }
        context.onDiary(diary, "invitation-decline", input: Diary.InvitationRef.self) { input, _ in
            try await diary.decline(input)
            return Done(ok: true)
        }
        context.onDiary(diary, "share-members", input: Diary.ChildRef.self) { input, _ in try await diary.members(input) }
        context.onDiary(diary, "share-revoke", input: Diary.Revoke.self) { input, _ in
            try await diary.revoke(input)
            return Done(ok: true)
        }
    }
}

struct NoInput: Decodable, Sendable {}
struct IDInput: Decodable, Sendable { var id: String }
struct ProfileInput: Decodable, Sendable { var person: String?; var name: String? }
struct SuggestionInput: Decodable, Sendable { var field: String; var prefix: String?; var language: String? }
struct ContactsFilter: Decodable, Sendable { var childId: String?; var kind: String? }
struct Done: Encodable, Sendable { var ok: Bool }

extension PluginContext {
    /// Registers an operation of the diary. Before the first call of a generation runs, the old
    /// schema's photo lists move into rows (`Diary.moveLegacyPhotoLists`): by then the host stamps
    /// writes for sync, which it does not yet in `start`. A failure there leaves the lists, which
    /// reads still show, for the next generation; it never fails the call.
    func onDiary<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ diary: Diary, _ name: String, input: Input.Type, _ handler: @escaping @Sendable (Input, OperationCall) async throws -> Output
    ) {
        onOperation(name, input: input) { input, call in
            do { try await diary.moveLegacyPhotoLists() } catch {
                self.log.warning("the old photo lists could not all be moved into rows (\(error)); the next start tries again")
            }
            return try await handler(input, call)
        }
    }
}
