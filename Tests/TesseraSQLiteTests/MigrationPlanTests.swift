import Testing
import TesseraSQLite

/// The one migrator's decisions (``MigrationPlan``), apart from any database: the SQLite runner
/// and the hub's both carry them out, so each rule is asserted here once, on plain values.
@Suite struct MigrationPlanTests {
    static let subject = StoreMigrationError.Subject(store: "test", location: "/data/test.sqlite")
    static let steps = [StoreMigration(version: 1, sql: "CREATE TABLE a(x)"), StoreMigration(version: 2, sql: "ALTER TABLE a ADD y"),
                        StoreMigration(version: 3, sql: "CREATE TABLE b(z)")]

    /// The rule that refused `body`, or `nil` if nothing did (any other error fails the test).
    static func problem(_ body: () throws -> Void) -> StoreMigrationError.Problem? {
        do { try body() } catch let error as StoreMigrationError { return error.problem } catch {
            Issue.record("not a migration error: \(error)")
        }
        return nil
    }

    @Test func aMalformedListIsRefusedBeforeAnythingRuns() {
        func step(_ v: Int) -> StoreMigration { StoreMigration(version: v, sql: "SELECT \(v)") }
        #expect(Self.problem { _ = try MigrationPlan([step(0)], of: Self.subject) } == .invalidVersion(version: 0, position: 0))
        #expect(Self.problem { _ = try MigrationPlan([step(1), step(1)], of: Self.subject) } == .duplicateVersion(1))
        #expect(Self.problem { _ = try MigrationPlan([step(1), step(3)], of: Self.subject) } == .missingVersion(2, declaredUpTo: 3))
        #expect(Self.problem { _ = try MigrationPlan([step(2), step(1)], of: Self.subject) } == .outOfOrder(version: 2, position: 0))
        #expect(Self.problem { _ = try MigrationPlan([], of: Self.subject) } == nil)
    }

    @Test func theNextStepFollowsTheRecordsAndNoneOnceUpToDate() throws {
        let plan = try MigrationPlan(Self.steps, of: Self.subject)
        #expect(try plan.next(applied: [:]) == Self.steps[0])
        #expect(try plan.next(applied: [1: Self.steps[0].sql]) == Self.steps[1])
        #expect(try plan.next(applied: [1: Self.steps[0].sql, 2: Self.steps[1].sql, 3: Self.steps[2].sql]) == nil)
        #expect(plan.latest == 3)
    }

    @Test func recordsThatDisagreeWithTheCodeAreRefused() throws {
        let plan = try MigrationPlan(Self.steps, of: Self.subject)
        #expect(Self.problem { _ = try plan.next(applied: [1: "", 2: "", 3: "", 4: "CREATE TABLE later(x)"]) }
            == .databaseAhead(applied: 4, known: 3))
        #expect(Self.problem { _ = try plan.next(applied: [1: Self.steps[0].sql, 2: "ALTER TABLE a ADD w"]) } == .changedAfterApplied(version: 2))
        #expect(Self.problem { _ = try plan.next(applied: [2: Self.steps[1].sql]) } == .recordMissing(version: 1, highestApplied: 2))
    }

    @Test func aDatabaseFromBeforeVersioningAdoptsItsStepsUnlessItIsAhead() throws {
        let plan = try MigrationPlan(Self.steps, of: Self.subject)
        #expect(Array(try plan.adopted(atLegacyVersion: 2)) == Array(Self.steps.prefix(2)))
        #expect(try plan.adopted(atLegacyVersion: 0).isEmpty)
        #expect(Self.problem { _ = try plan.adopted(atLegacyVersion: 4) } == .databaseAhead(applied: 4, known: 3))
    }

    @Test func aFailedStepIsToldWithItsStoreFileAndVersion() throws {
        let error = try MigrationPlan(Self.steps, of: Self.subject).failure(of: Self.steps[1], "no such table: a")
        #expect(error.problem == .failed(version: 2, message: "no such table: a"))
        #expect(error.description == "the test store in /data/test.sqlite: migration 2 failed and was rolled back: no such table: a")
    }
}
