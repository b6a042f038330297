import Foundation
import TesseraSDK

/// The baby diary, the port of the thesis's "BabyDiary" (specs/baby-diary.md): children and their
/// health cards, measurements, milestones, posts with photos, a timeline and calendar, contacts,
/// illnesses with temperatures, visits and medications, reminders on this device, and sharing a
/// child with other people as parent or guardian. docs/baby.md lists every operation.
package final class BabyPlugin: Plugin {
    package init() {}

    package var migrations: [StorageMigration] { BabySchema.migrations }

    package func start(context: PluginContext) async throws {
        let diary = Diary(storage: try context.capability(.storage), clock: try context.capability(.clock),
                          notifications: context.isGranted(.notifications) ? try context.capability(.notifications) : nil,
                          files: context.isGranted(.files) ? try context.capability(.files) : nil,
                          sync: context.isGranted(.sync) ? try context.capability(.sync) : nil,
                          events: context.isGranted(.events) ? try context.capability(.events) : nil,
                          config: BabyConfig(context.config))
        BabyOperations.registerChildren(context, diary)
        BabyOperations.registerHealthCard(context, diary)
        BabyOperations.registerRecords(context, diary)
        BabyOperations.registerHealthProblems(context, diary)
        BabyOperations.registerCare(context, diary)
        BabyOperations.registerViews(context, diary)
        BabyOperations.registerSharing(context, diary)
        // Rows another device deleted, a problem it ended, or a child this device lost access to:
        // this device's reminders for them go.
        context.onRemoteChanges { changes in
            for row in changes.rows where ["records", "health_items"].contains(row.table) {
                if row.deleted { try await diary.cancelReminders(recordID: row.id) } else if row.table == "records" { try await diary.problemMayHaveEnded(row.id) }
            }
            // Changes of this device the hub refused were taken back: the person is told (Refusals.swift).
            try await diary.tellRefused(changes.refused)
            for space in changes.droppedSpaces {
                try await diary.cancelReminders(childID: space)
                try await diary.publish(BabyEvents.childLost, ["childId": .string(space)])
            }
        }
    }
}
