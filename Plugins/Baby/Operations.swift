import Foundation
import TesseraSDK

/// Every operation of the manifest, bound to the area that serves it. The host has checked each
/// input against the manifest's schema before a handler runs; the areas check the rest (ranges,
/// dates, references, permissions) before writing anything.
enum BabyOperations {
    static func registerChildren(_ context: PluginContext, _ diary: Diary) {
        context.onOperation("profile-set", input: ProfileInput.self) { input, _ in try await diary.setProfile(person: input.person, name: input.name) }
        context.onOperation("child-create", input: Diary.NewChild.self) { input, _ in try await diary.createChild(input) }
        context.onOperation("children-list", input: NoInput.self) { _, _ in try await diary.listChildren() }
        context.onOperation("child-get", input: IDInput.self) { input, _ in try await diary.childProfile(input.id) }
        context.onOperation("child-update", input: Diary.ChildChange.self) { input, _ in try await diary.updateChild(input) }
        context.onOperation("child-delete", input: IDInput.self) { input, _ in
            try await diary.deleteChild(input.id)
            return Done(ok: true)
        }
    }

    static func registerHealthCard(_ context: PluginContext, _ diary: Diary) {
        context.onOperation("insurers-list", input: NoInput.self) { _, _ in diary.insurers() }
        context.onOperation("health-card-set", input: Diary.CardChange.self) { input, _ in try await diary.setCard(input) }
        context.onOperation("allergy-add", input: Diary.NewAllergy.self) { input, _ in try await diary.addAllergy(input) }
        context.onOperation("disease-add", input: Diary.NewDisease.self) { input, _ in try await diary.addDisease(input) }
        context.onOperation("vaccination-add", input: Diary.NewVaccination.self) { input, _ in try await diary.addVaccination(input) }
        context.onOperation("health-item-update", input: Diary.ItemChange.self) { input, _ in try await diary.updateItem(input) }
        context.onOperation("health-item-delete", input: IDInput.self) { input, _ in
            try await diary.deleteItem(input.id)
            return Done(ok: true)
        }
    }

    static func registerRecords(_ context: PluginContext, _ diary: Diary) {
        context.onOperation("measurement-add", input: Diary.NewMeasurement.self) { input, _ in try await diary.addMeasurement(input) }
        context.onOperation("measurements", input: Diary.SeriesInput.self) { input, _ in try await diary.measurementSeries(input) }
        context.onOperation("milestone-add", input: Diary.NewMilestone.self) { input, _ in try await diary.addMilestone(input) }
        context.onOperation("post-add", input: Diary.NewPost.self) { input, _ in try await diary.addPost(input) }
        context.onOperation("record-get", input: IDInput.self) { input, _ in try await diary.record(input.id) }
        context.onOperation("record-update", input: Diary.RecordChange.self) { input, _ in try await diary.updateRecord(input) }
        context.onOperation("record-delete", input: IDInput.self) { input, _ in
            try await diary.deleteRecord(input.id)
            return Done(ok: true)
        }
        context.onOperation("photo-put", input: Diary.InlinePhoto.self) { input, _ in try await diary.putPhoto(base64: input.data) }
        context.onOperation("photo-upload", input: Diary.UploadedPhoto.self) { input, _ in diary.uploadedPhoto(input.file) }
        context.onOperation("photo-get", input: Diary.PhotoAddress.self) { input, _ in try await diary.photoForDownload(input.address) }
        context.onOperation("suggestions", input: SuggestionInput.self) { input, _ in try await diary.suggestions(field: input.field, prefix: input.prefix) }
    }

    static func registerHealthProblems(_ context: PluginContext, _ diary: Diary) {
        context.onOperation("problem-open", input: Diary.NewProblem.self) { input, _ in try await diary.openProblem(input) }
        context.onOperation("problem-close", input: Diary.ProblemEnd.self) { input, _ in try await diary.closeProblem(input) }
        context.onOperation("problem-get", input: IDInput.self) { input, _ in try await diary.problemDetail(input.id) }
        context.onOperation("symptom-add", input: Diary.NewSymptom.self) { input, _ in try await diary.addSymptom(input) }
        context.onOperation("temperature-add", input: Diary.NewTemperature.self) { input, _ in try await diary.addTemperature(input) }
        context.onOperation("visit-add", input: Diary.NewVisit.self) { input, _ in try await diary.addVisit(input) }
        context.onOperation("medication-add", input: Diary.NewMedication.self) { input, _ in try await diary.addMedication(input) }
        context.onOperation("medication-notify", input: Diary.NotifyInput.self) { input, _ in try await diary.setMedicationNotify(input) }
        context.onOperation("record-assign", input: Diary.Assignment.self) { input, _ in try await diary.assign(input) }
        context.onOperation("reminder-set", input: Diary.ReminderInput.self) { input, _ in try await diary.setReminder(input) }
        context.onOperation("reminders-list", input: NoInput.self) { _, _ in try await diary.listReminders() }
    }

    static func registerViews(_ context: PluginContext, _ diary: Diary) {
        context.onOperation("timeline", input: Diary.TimelineInput.self) { input, _ in try await diary.timeline(input) }
        context.onOperation("calendar-month", input: Diary.MonthInput.self) { input, _ in try await diary.calendarMonth(input) }
        context.onOperation("calendar-day", input: Diary.DayInput.self) { input, _ in try await diary.calendarDay(input) }
        context.onOperation("contact-add", input: Diary.NewContact.self) { input, _ in try await diary.addContact(input) }
        context.onOperation("contact-update", input: Diary.ContactChange.self) { input, _ in try await diary.updateContact(input) }
        context.onOperation("contact-delete", input: IDInput.self) { input, _ in
            try await diary.deleteContact(input.id)
            return Done(ok: true)
        }
        context.onOperation("contacts-list", input: ContactsFilter.self) { input, _ in try await diary.contacts(childID: input.childId, kind: input.kind) }
        context.onOperation("contact-vcard", input: IDInput.self) { input, _ in try await diary.contactVCard(input.id) }
        context.onOperation("export", input: Diary.ExportInput.self) { input, _ in try await diary.export(input) }
    }

    static func registerSharing(_ context: PluginContext, _ diary: Diary) {
        context.onOperation("share-invite", input: Diary.Invite.self) { input, _ in try await diary.invite(input) }
        context.onOperation("invitations-list", input: NoInput.self) { _, _ in try await diary.invitations() }
        context.onOperation("invitation-accept", input: Diary.InvitationRef.self) { input, _ in try await diary.accept(input) }
        context.onOperation("invitation-decline", input: Diary.InvitationRef.self) { input, _ in
            try await diary.decline(input)
            return Done(ok: true)
        }
        context.onOperation("share-members", input: Diary.ChildRef.self) { input, _ in try await diary.members(input) }
        context.onOperation("share-revoke", input: Diary.Revoke.self) { input, _ in
            try await diary.revoke(input)
            return Done(ok: true)
        }
    }
}

struct NoInput: Decodable, Sendable {}
struct IDInput: Decodable, Sendable { var id: String }
struct ProfileInput: Decodable, Sendable { var person: String?; var name: String? }
struct SuggestionInput: Decodable, Sendable { var field: String; var prefix: String? }
struct ContactsFilter: Decodable, Sendable { var childId: String?; var kind: String? }
struct Done: Encodable, Sendable { var ok: Bool }
