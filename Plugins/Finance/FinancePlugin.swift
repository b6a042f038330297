import Foundation
import TesseraSDK

/// Personal finance, the port of the thesis's "Money Mindly" (specs/finance.md): transactions,
/// categories and accounts, a monthly budget with its month boundary, savings goals, the two
/// reminders plus an over-budget alert, overviews and charts, and CSV in and out. Money is integer
/// minor units throughout (Money.swift). docs/finance.md lists every operation.
package final class FinancePlugin: Plugin {
    package init() {}

    // Every NOT NULL column has a default, and there are no UNIQUE or foreign keys, so that the
    // tables sync across a person's devices (the manifest's `sync` lists them; `device_local` is
    // left out on purpose). A transaction's id is its identity everywhere: `fio-<movement id>`,
    // `rec-<rule>-<day>`, so two devices importing or repeating the same thing make one row.
    package var migrations: [StorageMigration] {
        [StorageMigration(version: 1, sql: """
            CREATE TABLE transactions (id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'expense', name TEXT NOT NULL DEFAULT '',
                amount_minor INTEGER NOT NULL DEFAULT 0, category TEXT NOT NULL DEFAULT 'other', occurred_on TEXT NOT NULL DEFAULT '',
                account TEXT NOT NULL DEFAULT 'cash', created_at TEXT NOT NULL DEFAULT '');
            CREATE INDEX transactions_by_day ON transactions (occurred_on, kind);
            CREATE TABLE categories (id TEXT PRIMARY KEY);
            CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT 'cash');
            CREATE TABLE budgets (id TEXT PRIMARY KEY, amount_minor INTEGER NOT NULL DEFAULT 0, origin TEXT NOT NULL DEFAULT 'user');
            CREATE TABLE goals (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', duration TEXT NOT NULL DEFAULT 'monthly',
                target_minor INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL DEFAULT '');
            CREATE TABLE contributions (id TEXT PRIMARY KEY, goal_id TEXT NOT NULL DEFAULT '', amount_minor INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL DEFAULT '');
            CREATE TABLE settings (id TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '');
            """),
         StorageMigration(version: 2, sql: """
            CREATE TABLE recurring (id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'expense', name TEXT NOT NULL DEFAULT '',
                amount_minor INTEGER NOT NULL DEFAULT 0, category TEXT NOT NULL DEFAULT 'other', account TEXT NOT NULL DEFAULT 'cash',
                every TEXT NOT NULL DEFAULT 'month', interval INTEGER NOT NULL DEFAULT 1, start TEXT NOT NULL DEFAULT '', until TEXT);
            """),
         StorageMigration(version: 3, sql: """
            CREATE TABLE category_rules (id TEXT PRIMARY KEY, match TEXT NOT NULL DEFAULT '', category TEXT NOT NULL DEFAULT 'other',
                position INTEGER NOT NULL DEFAULT 0);
            """),
         StorageMigration(version: 4, sql: """
            ALTER TABLE goals ADD COLUMN completed_at TEXT NOT NULL DEFAULT '';
            CREATE TABLE category_budgets (id TEXT PRIMARY KEY, amount_minor INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE device_local (id TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '');
            """),
         // Issue 42: bank statements (Statements/: the import a transaction came from, so a whole
         // import can be undone, and its counterparty), split transactions, rules with more
         // conditions, category limits that roll over.
         StorageMigration(version: 5, sql: """
            ALTER TABLE transactions ADD COLUMN import_id TEXT NOT NULL DEFAULT '';
            ALTER TABLE transactions ADD COLUMN counterparty TEXT NOT NULL DEFAULT '';
            CREATE TABLE splits (id TEXT PRIMARY KEY, transaction_id TEXT NOT NULL DEFAULT '', category TEXT NOT NULL DEFAULT 'other',
                amount_minor INTEGER NOT NULL DEFAULT 0, note TEXT NOT NULL DEFAULT '', position INTEGER NOT NULL DEFAULT 0);
            CREATE INDEX splits_by_transaction ON splits (transaction_id);
            ALTER TABLE category_rules ADD COLUMN payee TEXT NOT NULL DEFAULT '';
            ALTER TABLE category_rules ADD COLUMN kind TEXT NOT NULL DEFAULT '';
            ALTER TABLE category_rules ADD COLUMN account TEXT NOT NULL DEFAULT '';
            ALTER TABLE category_rules ADD COLUMN min_minor INTEGER;
            ALTER TABLE category_rules ADD COLUMN max_minor INTEGER;
            ALTER TABLE category_budgets ADD COLUMN rollover INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE category_budgets ADD COLUMN since TEXT NOT NULL DEFAULT '';
            CREATE TABLE imports (id TEXT PRIMARY KEY, source TEXT NOT NULL DEFAULT '', filename TEXT NOT NULL DEFAULT '',
                created_at TEXT NOT NULL DEFAULT '', imported INTEGER NOT NULL DEFAULT 0, undone_at TEXT NOT NULL DEFAULT '');
            """)]
    }

    package func start(context: PluginContext) async throws {
        let ledger = Ledger(storage: try context.capability(.storage), clock: try context.capability(.clock),
                            notifications: context.isGranted(.notifications) ? try context.capability(.notifications) : nil,
                            emitsEvents: context.isGranted(.events))
        registerSettings(context, ledger)
        registerTransactions(context, ledger)
        registerBudgetAndGoals(context, ledger)
        registerReports(context, ledger)
        registerBank(context, ledger)
        registerStatements(context, ledger)
        context.onOperation("recurring-add", input: Ledger.NewRecurring.self) { input, _ in try await ledger.addRecurring(input) }
        context.onOperation("recurring-list", input: Empty.self) { _, _ in RecurringList(recurring: try await ledger.recurring()) }
        context.onOperation("recurring-delete", input: IDInput.self) { input, _ in
            try await ledger.deleteRecurring(input.id)
            return Done(ok: true)
        }
        context.onTimer("recurring") { _ in _ = try await ledger.materializeRecurring() }
        context.onTimer(Ledger.weeklyKey) { firing in try await ledger.weeklyBudgetDue(firing) }
        context.onOperation("tutorial", input: Ledger.TutorialInput.self) { input, _ in try await ledger.tutorial(input) }
        // Rows another device changed: budgets, limits and goals may now be passed, and the
        // reminders follow the synced switches and time zone.
        context.onRemoteChanges { _ in
            try await ledger.afterTransactionsChanged(month: try await ledger.today().month)
            try await ledger.markReachedGoals()
        }
    }

    private func registerBank(_ context: PluginContext, _ ledger: Ledger) {
        let http = context.isGranted(.http) ? try? context.capability(.http) : nil
        let secrets = context.isGranted(.secrets) ? try? context.capability(.secrets) : nil
        context.onOperation("fio-token-set", input: Ledger.FioToken.self) { input, _ in try await ledger.setFioToken(input.token, secrets: secrets) }
        context.onOperation("fio-token-clear", input: Empty.self) { _, _ in try await ledger.clearFioToken(secrets: secrets) }
        context.onOperation("fio-status", input: Empty.self) { _, _ in try await ledger.fioStatus(secrets: secrets) }
        context.onOperation("fio-import", input: FioImportInput.self) { input, _ in
            try await ledger.importFromFio(http: http, secrets: secrets, resolveMismatch: input.resolveMismatch)
        }
        context.onOperation("fio-auto-import", input: Ledger.AutoImportInput.self) { input, _ in try await ledger.setAutoImport(input, secrets: secrets) }
        context.onTimer(Ledger.dailyImportTimer) { _ in try await ledger.dailyImportDue(http: http, secrets: secrets) }
        context.onOperation("category-rule-add", input: Ledger.NewRule.self) { input, _ in try await ledger.addCategoryRule(input) }
        context.onOperation("category-rule-test", input: Ledger.NewRule.self) { input, _ in try await ledger.testCategoryRule(input) }
        context.onOperation("category-rule-delete", input: IDInput.self) { input, _ in RuleList(rules: try await ledger.deleteCategoryRule(input.id)) }
        context.onOperation("category-rules-list", input: Empty.self) { _, _ in RuleList(rules: try await ledger.categoryRules()) }
    }

    private func registerStatements(_ context: PluginContext, _ ledger: Ledger) {
        context.onOperation("statement-preview", input: Ledger.StatementInput.self) { input, _ in try await ledger.previewStatement(input) }
        context.onOperation("statement-import", input: Ledger.StatementInput.self) { input, _ in try await ledger.importStatement(input) }
        context.onOperation("imports-list", input: Empty.self) { _, _ in ImportList(imports: try await ledger.imports()) }
        context.onOperation("import-undo", input: IDInput.self) { input, _ in try await ledger.undoImport(input.id) }
    }

    private func registerSettings(_ context: PluginContext, _ ledger: Ledger) {
        context.onOperation("settings-get", input: Empty.self) { _, _ in try await ledger.settings() }
        context.onOperation("settings-set", input: Ledger.SettingsInput.self) { input, _ in try await ledger.setSettings(input) }
        context.onOperation("categories-list", input: Empty.self) { _, _ in Names(names: try await ledger.categories()) }
        context.onOperation("category-add", input: NameInput.self) { input, _ in Names(names: try await ledger.addCategory(input.name)) }
        context.onOperation("accounts-list", input: Empty.self) { _, _ in
            AccountList(accounts: try await ledger.accounts().map { AccountList.Account(id: $0.id, name: $0.name, kind: $0.kind) })
        }
        context.onOperation("account-add", input: AccountList.Account.self) { input, _ in
            try await ledger.addAccount(id: input.id, name: input.name, kind: input.kind)
            return AccountList(accounts: try await ledger.accounts().map { AccountList.Account(id: $0.id, name: $0.name, kind: $0.kind) })
        }
        context.onOperation("notifications-configure", input: Ledger.NotificationSettings.self) { input, _ in
            try await ledger.configureNotifications(input)
        }
        context.onOperation("notifications-status", input: Empty.self) { _, _ in try await ledger.notificationStatus() }
    }

    private func registerTransactions(_ context: PluginContext, _ ledger: Ledger) {
        context.onOperation("transaction-add", input: Ledger.NewTransaction.self) { input, _ in try await ledger.addTransaction(input) }
        context.onOperation("transaction-update", input: Ledger.TransactionChange.self) { input, _ in try await ledger.updateTransaction(input) }
        context.onOperation("transaction-split", input: Ledger.SplitInput.self) { input, _ in try await ledger.splitTransaction(input) }
        context.onOperation("transaction-delete", input: IDInput.self) { input, _ in
            try await ledger.deleteTransaction(input.id)
            return Done(ok: true)
        }
        context.onOperation("transactions-list", input: Ledger.ListFilter.self) { input, _ in
            TransactionList(transactions: try await ledger.transactions(input))
        }
    }

    private func registerBudgetAndGoals(_ context: PluginContext, _ ledger: Ledger) {
        context.onOperation("budget-set", input: Ledger.BudgetInput.self) { input, _ in try await ledger.setBudget(input) }
        context.onOperation("budget-clear", input: MonthInput.self) { input, _ in try await ledger.clearBudget(month: input.month) }
        context.onOperation("budget-status", input: MonthInput.self) { input, _ in try await ledger.budgetStatus(month: input.month) }
        context.onOperation("category-budget-set", input: Ledger.CategoryBudgetInput.self) { input, _ in try await ledger.setCategoryBudget(input) }
        context.onOperation("category-budget-clear", input: Ledger.CategoryInput.self) { input, _ in try await ledger.clearCategoryBudget(input) }
        context.onOperation("category-budget-history", input: Ledger.CategoryHistoryInput.self) { input, _ in
            CategoryHistory(category: input.category, months: try await ledger.categoryHistory(input))
        }
        context.onOperation("goal-create", input: Ledger.NewGoal.self) { input, _ in try await ledger.createGoal(input) }
        context.onOperation("goal-contribute", input: Ledger.Contribution.self) { input, _ in try await ledger.contribute(input) }
        context.onOperation("goal-delete", input: Ledger.GoalDeletion.self) { input, _ in
            try await ledger.deleteGoal(input)
            return Done(ok: true)
        }
        context.onOperation("goals-list", input: DurationInput.self) { input, _ in GoalList(goals: try await ledger.goals(duration: input.duration)) }
    }

    private func registerReports(_ context: PluginContext, _ ledger: Ledger) {
        context.onOperation("overview", input: Ledger.OverviewInput.self) { input, _ in try await ledger.overview(input) }
        context.onOperation("chart-svg", input: ChartInput.self) { input, _ in
            let overview = try await ledger.overview(Ledger.OverviewInput(period: input.period ?? "month", month: input.month, year: input.year,
                                                                          date: input.date, from: input.from, to: input.to))
            let theme = Charts.Theme.named(input.theme)
            switch input.kind {
            case "categories": return Chart(svg: Charts.categories(overview, theme: theme))
            case "line": return Chart(svg: Charts.line(overview, theme: theme))
            default: return Chart(svg: Charts.series(overview, theme: theme))
            }
        }
        context.onOperation("export-csv", input: LayoutInput.self) { input, _ in try await ledger.exportCSV(layout: input.layout ?? "thesis") }
        context.onOperation("import-csv", input: CSVInput.self) { input, _ in try await ledger.importCSV(input.csv, layout: input.layout ?? "thesis") }
    }
}

struct Empty: Decodable, Sendable {}
struct IDInput: Decodable, Sendable { var id: String }
struct NameInput: Decodable, Sendable { var name: String }
struct MonthInput: Decodable, Sendable { var month: String? }
struct DurationInput: Decodable, Sendable { var duration: String? }
struct LayoutInput: Decodable, Sendable { var layout: String? }
struct CSVInput: Decodable, Sendable { var csv: String; var layout: String? }
struct ChartInput: Decodable, Sendable {
    var kind: String, period: String?, month: String?, year: Int?, date: String?, from: String?, to: String?, theme: String?
}
struct Done: Encodable, Sendable { var ok: Bool }
struct Names: Encodable, Sendable { var names: [String] }
struct Chart: Encodable, Sendable { var svg: String }
struct TransactionList: Encodable, Sendable { var transactions: [Ledger.Transaction] }
struct GoalList: Encodable, Sendable { var goals: [Ledger.Goal] }
struct RecurringList: Encodable, Sendable { var recurring: [Ledger.Recurring] }
struct CategoryHistory: Encodable, Sendable { var category: String; var months: [Ledger.CategoryMonth] }
struct ImportList: Encodable, Sendable { var imports: [Ledger.ImportRecord] }
struct RuleList: Encodable, Sendable { var rules: [Ledger.Rule] }
struct FioImportInput: Decodable, Sendable { var resolveMismatch: String? }
struct AccountList: Codable, Sendable {
    struct Account: Codable, Sendable { var id: String; var name: String; var kind: String }
    var accounts: [Account]
}
