/// The kept conflicts of a plugin's synced tables, granted as the `sync` capability (SDK 1.3).
///
/// A text column the manifest lists under `keepConflicts` keeps, when two writers changed it
/// concurrently (two parents editing the same note offline), the value that lost by
/// last-writer-wins beside the one shown. The plugin lists them, shows them to the person, and
/// resolves each by writing the chosen or merged value, which replaces every value in conflict on
/// every device once it has synced.
///
/// ```swift
/// let sync = try context.capability(.sync)
/// for conflict in try await sync.conflicts() where conflict.table == "entries" {
///     let merged = ([conflict.current] + conflict.others).compactMap(\.text).joined(separator: "\n")
///     try await sync.resolveConflict(table: conflict.table, id: conflict.id, column: conflict.column, value: .text(merged))
/// }
/// ```
///
/// The host grants it only to a plugin whose tables sync (the manifest's `sync.tables` and the
/// operator's `sync` grant).
public protocol PluginSync: Sendable {
    /// Every cell in conflict, in table, id and column order. Every device that has received the
    /// same changes lists the same conflicts.
    func conflicts() async throws -> [CellConflict]

    /// Resolves the conflict of one cell by writing `value` (one of the values in conflict, or a
    /// merge of them) to the row, as a change that supersedes all of them.
    ///
    /// - Throws: ``PluginError`` with code `notFound` if that cell has no conflict (resolved
    ///   already, here or on another device).
    func resolveConflict(table: String, id: String, column: String, value: SQLValue) async throws

    /// The plugin's shared spaces at the hub: create one, invite people, manage its members
    /// (``PluginSpaces``; SDK 1.4).
    var spaces: any PluginSpaces { get }

    /// Sends `message` through the hub for the person logged in on this device (SDK 1.6; see
    /// ``HubMailMessage``). The hub queues it in its durable outbox and answers at once.
    ///
    /// - Throws: ``PluginError`` with the hub's code for each limit — `invalid_recipient`,
    ///   `invalid_subject`, `text_too_long`, `invalid_attachment_name`, `attachment_type_not_allowed`,
    ///   `attachment_too_large`, `mail_rate_exceeded` — naming the field; `unavailable` when the
    ///   hub sends no mail; ``PluginError/Code-swift.struct/hubUnreachable`` offline;
    ///   ``PluginError/Code-swift.struct/notLoggedIn`` without a hub login.
    func sendMail(_ message: HubMailMessage) async throws -> HubMailReceipt
}

extension CapabilityKey where Value == any PluginSync {
    /// The kept conflicts of the plugin's synced tables.
    public static var sync: CapabilityKey<any PluginSync> { .init("sync") }
}

/// A cell whose concurrent writers disagreed.
public struct CellConflict: Sendable, Hashable {
    /// The table.
    public let table: String
    /// The row's `id`.
    public let id: String
    /// The column (one the manifest lists under `keepConflicts`).
    public let column: String
    /// The value the cell shows: the last writer's.
    public let current: SQLValue
    /// The values that lost, oldest first.
    public let others: [SQLValue]

    /// Creates a conflict.
    public init(table: String, id: String, column: String, current: SQLValue, others: [SQLValue]) {
        self.table = table
        self.id = id
        self.column = column
        self.current = current
        self.others = others
    }
}
