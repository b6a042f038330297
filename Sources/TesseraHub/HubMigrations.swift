import TesseraSQLite

/// The hub's tables, as versioned migrations that both of its databases run (DESIGN.md §7): the
/// embedded `hub.sqlite` and PostgreSQL, each step in the database's own types, under the rules
/// of the host's stores (`StoreMigrationRules`, docs/storage.md). Secrets appear only as hashes:
/// passwords as yescrypt text, device tokens and invitation codes as their SHA-256.
///
/// Never edit a step once shipped: add one, with its SQLite and its PostgreSQL statements.
enum HubMigrations {
    /// The store's name in `_tessera_schema`.
    static let store = "hub"

    static let all: [HubMigration] = [version1, version2, version3, version4, version5, version6, version7, version8, version9, version10, version11, version12]

    /// The tables as the first hub made them.
    static let version1 = HubMigration(
        version: 1,
        sqlite: [
            "CREATE TABLE IF NOT EXISTS hub_people(id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_ms INTEGER NOT NULL)",
            """
            CREATE TABLE IF NOT EXISTS hub_devices(
                id TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES hub_people(id), name TEXT NOT NULL,
                token_sha256 BLOB NOT NULL UNIQUE, created_ms INTEGER NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_spaces(
                id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('personal', 'shared')),
                deleted INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_members(
                space TEXT NOT NULL REFERENCES hub_spaces(id), person TEXT NOT NULL REFERENCES hub_people(id),
                role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), PRIMARY KEY (space, person))
            """,
            "CREATE INDEX IF NOT EXISTS hub_members_person ON hub_members(person)",
            """
            CREATE TABLE IF NOT EXISTS hub_departures(
                space TEXT NOT NULL, person TEXT NOT NULL, reason TEXT NOT NULL, at_ms INTEGER NOT NULL, PRIMARY KEY (space, person))
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_invitations(
                code_sha256 BLOB PRIMARY KEY, space TEXT NOT NULL REFERENCES hub_spaces(id),
                role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), inviter TEXT NOT NULL,
                expires_ms INTEGER NOT NULL, accepted_by TEXT)
            """,
            // Every change once per (plugin, space, timestamp, column); seq is the arrival order
            // (AUTOINCREMENT: a sequence number is never reused, so a cursor never skips a change).
            """
            CREATE TABLE IF NOT EXISTS hub_changes(
                seq INTEGER PRIMARY KEY AUTOINCREMENT, plugin TEXT NOT NULL, space TEXT NOT NULL,
                ts TEXT NOT NULL, col TEXT NOT NULL, record BLOB NOT NULL, UNIQUE (plugin, space, ts, col))
            """,
            "CREATE INDEX IF NOT EXISTS hub_changes_pull ON hub_changes(plugin, seq)",
            """
            CREATE TABLE IF NOT EXISTS hub_merkle(
                plugin TEXT NOT NULL, space TEXT NOT NULL, prefix TEXT NOT NULL, hash INTEGER NOT NULL,
                PRIMARY KEY (plugin, space, prefix)) WITHOUT ROWID
            """,
        ],
        postgres: [
            "CREATE TABLE IF NOT EXISTS hub_people(id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_ms BIGINT NOT NULL)",
            // `rowid` is named as SQLite's implicit one: devices are listed in the order they logged in.
            """
            CREATE TABLE IF NOT EXISTS hub_devices(
                rowid BIGINT GENERATED ALWAYS AS IDENTITY, id TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES hub_people(id),
                name TEXT NOT NULL, token_sha256 BYTEA NOT NULL UNIQUE, created_ms BIGINT NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_spaces(
                id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('personal', 'shared')),
                deleted INTEGER NOT NULL DEFAULT 0, created_ms BIGINT NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_members(
                space TEXT NOT NULL REFERENCES hub_spaces(id), person TEXT NOT NULL REFERENCES hub_people(id),
                role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), PRIMARY KEY (space, person))
            """,
            "CREATE INDEX IF NOT EXISTS hub_members_person ON hub_members(person)",
            """
            CREATE TABLE IF NOT EXISTS hub_departures(
                space TEXT NOT NULL, person TEXT NOT NULL, reason TEXT NOT NULL, at_ms BIGINT NOT NULL, PRIMARY KEY (space, person))
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_invitations(
                code_sha256 BYTEA PRIMARY KEY, space TEXT NOT NULL REFERENCES hub_spaces(id),
                role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), inviter TEXT NOT NULL,
                expires_ms BIGINT NOT NULL, accepted_by TEXT)
            """,
            // seq is the arrival order. A sequence never hands a number out twice; pushes of one
            // plugin hold its advisory lock until they commit, so numbers also commit in order.
            """
            CREATE TABLE IF NOT EXISTS hub_changes(
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, plugin TEXT NOT NULL, space TEXT NOT NULL,
                ts TEXT NOT NULL, col TEXT NOT NULL, record BYTEA NOT NULL, UNIQUE (plugin, space, ts, col))
            """,
            "CREATE INDEX IF NOT EXISTS hub_changes_pull ON hub_changes(plugin, seq)",
            """
            CREATE TABLE IF NOT EXISTS hub_merkle(
                plugin TEXT NOT NULL, space TEXT NOT NULL, prefix TEXT NOT NULL, hash BIGINT NOT NULL,
                PRIMARY KEY (plugin, space, prefix))
            """,
        ])

    /// Device tokens expire after a long time unused (`last_used_ms`). The devices of an older
    /// hub count as used when the upgrade runs.
    static let version2 = HubMigration(
        version: 2,
        sqlite: ["ALTER TABLE hub_devices ADD COLUMN last_used_ms INTEGER", "UPDATE hub_devices SET last_used_ms = :now_ms"],
        postgres: ["ALTER TABLE hub_devices ADD COLUMN last_used_ms BIGINT", "UPDATE hub_devices SET last_used_ms = :now_ms"])

    /// Spaces remember the plugin whose space they are (set by the push or `PUT` that registered
    /// them; `NULL` for spaces of an older hub), so a plugin lists and manages only its own.
    /// Invitations get an id (owners list and cancel them by it; an older invitation's id is its
    /// code's hash in hex) and may be addressed to one person (`invitee`), who lists, accepts or
    /// declines them without the code.
    static let version3 = HubMigration(
        version: 3,
        sqlite: [
            "ALTER TABLE hub_spaces ADD COLUMN plugin TEXT",
            "ALTER TABLE hub_invitations ADD COLUMN id TEXT",
            "UPDATE hub_invitations SET id = lower(hex(code_sha256))",
            "CREATE UNIQUE INDEX IF NOT EXISTS hub_invitations_id ON hub_invitations(id)",
            "ALTER TABLE hub_invitations ADD COLUMN invitee TEXT",
            "CREATE INDEX IF NOT EXISTS hub_invitations_invitee ON hub_invitations(invitee)",
        ],
        postgres: [
            "ALTER TABLE hub_spaces ADD COLUMN plugin TEXT",
            "ALTER TABLE hub_invitations ADD COLUMN id TEXT",
            "UPDATE hub_invitations SET id = encode(code_sha256, 'hex')",
            "CREATE UNIQUE INDEX IF NOT EXISTS hub_invitations_id ON hub_invitations(id)",
            "ALTER TABLE hub_invitations ADD COLUMN invitee TEXT",
            "CREATE INDEX IF NOT EXISTS hub_invitations_invitee ON hub_invitations(invitee)",
        ])

    /// Notifications to a space's members (docs/hub.md): the idempotency keys of those filed, one
    /// copy per person (`hub_inbox`, numbered in arrival order: the fetch cursor), and how far each
    /// device has fetched (a copy goes once every device of its person is past it).
    static let version4 = HubMigration(
        version: 4,
        sqlite: [
            """
            CREATE TABLE IF NOT EXISTS hub_notification_keys(
                key TEXT PRIMARY KEY, plugin TEXT NOT NULL, space TEXT NOT NULL, sender TEXT NOT NULL, created_ms INTEGER NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_inbox(
                seq INTEGER PRIMARY KEY AUTOINCREMENT, person TEXT NOT NULL, key TEXT NOT NULL, notification_key TEXT NOT NULL,
                plugin TEXT NOT NULL, space TEXT NOT NULL, sender TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
                payload TEXT NOT NULL, due_ms INTEGER NOT NULL, late INTEGER NOT NULL, created_ms INTEGER NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS hub_inbox_person ON hub_inbox(person, seq)",
            "CREATE TABLE IF NOT EXISTS hub_inbox_acks(device TEXT PRIMARY KEY, seq INTEGER NOT NULL)",
        ],
        postgres: [
            """
            CREATE TABLE IF NOT EXISTS hub_notification_keys(
                key TEXT PRIMARY KEY, plugin TEXT NOT NULL, space TEXT NOT NULL, sender TEXT NOT NULL, created_ms BIGINT NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS hub_inbox(
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, person TEXT NOT NULL, key TEXT NOT NULL,
                notification_key TEXT NOT NULL, plugin TEXT NOT NULL, space TEXT NOT NULL, sender TEXT NOT NULL,
                title TEXT NOT NULL, body TEXT NOT NULL, payload TEXT NOT NULL, due_ms BIGINT NOT NULL, late INTEGER NOT NULL,
                created_ms BIGINT NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS hub_inbox_person ON hub_inbox(person, seq)",
            "CREATE TABLE IF NOT EXISTS hub_inbox_acks(device TEXT PRIMARY KEY, seq BIGINT NOT NULL)",
        ])

    /// Per-plugin roles (docs/sync.md): a space keeps its plugin's role rules (`role_rules`, the
    /// manifest's `sync.roles` as JSON, set by its owner's device), a member and an invitation an
    /// optional plugin role, and each row of a shared space the person whose push first stored a
    /// change of it (`hub_row_creators`: who may change it under an `own` rule). Rows stored before
    /// this step have no creator: the next person to push a change of one becomes it.
    static let version5 = HubMigration(
        version: 5,
        sqlite: [
            "ALTER TABLE hub_spaces ADD COLUMN role_rules TEXT",
            "ALTER TABLE hub_members ADD COLUMN plugin_role TEXT",
            "ALTER TABLE hub_invitations ADD COLUMN plugin_role TEXT",
            """
            CREATE TABLE IF NOT EXISTS hub_row_creators(
                plugin TEXT NOT NULL, space TEXT NOT NULL, tbl TEXT NOT NULL, row_id TEXT NOT NULL, person TEXT NOT NULL,
                PRIMARY KEY (plugin, space, tbl, row_id)) WITHOUT ROWID
            """,
            "CREATE INDEX IF NOT EXISTS hub_row_creators_person ON hub_row_creators(person, plugin, space)",
        ],
        postgres: [
            "ALTER TABLE hub_spaces ADD COLUMN role_rules TEXT",
            "ALTER TABLE hub_members ADD COLUMN plugin_role TEXT",
            "ALTER TABLE hub_invitations ADD COLUMN plugin_role TEXT",
            """
            CREATE TABLE IF NOT EXISTS hub_row_creators(
                plugin TEXT NOT NULL, space TEXT NOT NULL, tbl TEXT NOT NULL, row_id TEXT NOT NULL, person TEXT NOT NULL,
                PRIMARY KEY (plugin, space, tbl, row_id))
            """,
            "CREATE INDEX IF NOT EXISTS hub_row_creators_person ON hub_row_creators(person, plugin, space)",
        ])

    /// The hub's outbound mail (docs/hub.md, "Mail"): each message waits here until the SMTP
    /// server takes it; a sent message keeps its envelope, not its body.
    static let version6 = HubMigration(
        version: 6,
        sqlite: [
            """
            CREATE TABLE IF NOT EXISTS hub_mail_outbox(
                id TEXT PRIMARY KEY, recipient TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL, created_ms INTEGER NOT NULL,
                next_attempt_ms INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, sent_ms INTEGER, failed INTEGER NOT NULL DEFAULT 0,
                last_error TEXT)
            """,
            "CREATE INDEX IF NOT EXISTS hub_mail_outbox_due ON hub_mail_outbox(next_attempt_ms) WHERE sent_ms IS NULL AND failed = 0",
        ],
        postgres: [
            """
            CREATE TABLE IF NOT EXISTS hub_mail_outbox(
                id TEXT PRIMARY KEY, recipient TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL, created_ms BIGINT NOT NULL,
                next_attempt_ms BIGINT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, sent_ms BIGINT, failed INTEGER NOT NULL DEFAULT 0,
                last_error TEXT)
            """,
            "CREATE INDEX IF NOT EXISTS hub_mail_outbox_due ON hub_mail_outbox(next_attempt_ms) WHERE sent_ms IS NULL AND failed = 0",
        ])

    /// People with e-mail addresses (specs/baby-diary.md UC1–UC6): a registered person's address
    /// (lowercase, unique; their account name too) and names; the one open password-reset code of
    /// a person (its SHA-256, expiry, wrong tries); invitations addressed to an address that has
    /// no account yet (`invitee_email`: its owner sees them once registered).
    static let version7 = HubMigration(
        version: 7,
        sqlite: [
            "ALTER TABLE hub_people ADD COLUMN email TEXT",
            "ALTER TABLE hub_people ADD COLUMN first_name TEXT",
            "ALTER TABLE hub_people ADD COLUMN surname TEXT",
            "CREATE UNIQUE INDEX IF NOT EXISTS hub_people_email ON hub_people(email)",
            """
            CREATE TABLE IF NOT EXISTS hub_password_resets(
                person TEXT PRIMARY KEY REFERENCES hub_people(id), code_sha256 BLOB NOT NULL, expires_ms INTEGER NOT NULL,
                attempts INTEGER NOT NULL)
            """,
            "ALTER TABLE hub_invitations ADD COLUMN invitee_email TEXT",
            "CREATE INDEX IF NOT EXISTS hub_invitations_invitee_email ON hub_invitations(invitee_email)",
        ],
        postgres: [
            "ALTER TABLE hub_people ADD COLUMN email TEXT",
            "ALTER TABLE hub_people ADD COLUMN first_name TEXT",
            "ALTER TABLE hub_people ADD COLUMN surname TEXT",
            "CREATE UNIQUE INDEX IF NOT EXISTS hub_people_email ON hub_people(email)",
            """
            CREATE TABLE IF NOT EXISTS hub_password_resets(
                person TEXT PRIMARY KEY REFERENCES hub_people(id), code_sha256 BYTEA NOT NULL, expires_ms BIGINT NOT NULL,
                attempts INTEGER NOT NULL)
            """,
            "ALTER TABLE hub_invitations ADD COLUMN invitee_email TEXT",
            "CREATE INDEX IF NOT EXISTS hub_invitations_invitee_email ON hub_invitations(invitee_email)",
        ])

    /// Files through the hub (docs/hub.md, "Files"): the files whose bytes are whole on disk
    /// (`hub_files`), who proved they have each one's bytes (`hub_file_holders`: `uploaded` 1 when
    /// they sent them, which counts against their quota; 0 when they fetched them), the file
    /// addresses synced records carry (`hub_file_refs`: the current value of each cell that holds
    /// one, by its timestamp), uploads under way (`hub_file_uploads`) and each person's quota set
    /// by the operator (`hub_file_quotas`).
    static let version8 = HubMigration(
        version: 8,
        sqlite: [
            "CREATE TABLE IF NOT EXISTS hub_files(address TEXT PRIMARY KEY, size INTEGER NOT NULL, created_ms INTEGER NOT NULL)",
            """
            CREATE TABLE IF NOT EXISTS hub_file_holders(
                address TEXT NOT NULL, person TEXT NOT NULL, uploaded INTEGER NOT NULL, PRIMARY KEY (address, person))
            """,
            "CREATE INDEX IF NOT EXISTS hub_file_holders_person ON hub_file_holders(person)",
            """
            CREATE TABLE IF NOT EXISTS hub_file_refs(
                plugin TEXT NOT NULL, space TEXT NOT NULL, tbl TEXT NOT NULL, row_id TEXT NOT NULL, col TEXT NOT NULL,
                address TEXT NOT NULL, person TEXT NOT NULL, ts TEXT NOT NULL, PRIMARY KEY (plugin, space, tbl, row_id, col))
            """,
            "CREATE INDEX IF NOT EXISTS hub_file_refs_address ON hub_file_refs(address)",
            """
            CREATE TABLE IF NOT EXISTS hub_file_uploads(
                address TEXT NOT NULL, person TEXT NOT NULL, size INTEGER NOT NULL, started_ms INTEGER NOT NULL, PRIMARY KEY (address, person))
            """,
            "CREATE TABLE IF NOT EXISTS hub_file_quotas(person TEXT PRIMARY KEY, quota_bytes INTEGER NOT NULL)",
        ],
        postgres: [
            "CREATE TABLE IF NOT EXISTS hub_files(address TEXT PRIMARY KEY, size BIGINT NOT NULL, created_ms BIGINT NOT NULL)",
            """
            CREATE TABLE IF NOT EXISTS hub_file_holders(
                address TEXT NOT NULL, person TEXT NOT NULL, uploaded INTEGER NOT NULL, PRIMARY KEY (address, person))
            """,
            "CREATE INDEX IF NOT EXISTS hub_file_holders_person ON hub_file_holders(person)",
            """
            CREATE TABLE IF NOT EXISTS hub_file_refs(
                plugin TEXT NOT NULL, space TEXT NOT NULL, tbl TEXT NOT NULL, row_id TEXT NOT NULL, col TEXT NOT NULL,
                address TEXT NOT NULL, person TEXT NOT NULL, ts TEXT NOT NULL, PRIMARY KEY (plugin, space, tbl, row_id, col))
            """,
            "CREATE INDEX IF NOT EXISTS hub_file_refs_address ON hub_file_refs(address)",
            """
            CREATE TABLE IF NOT EXISTS hub_file_uploads(
                address TEXT NOT NULL, person TEXT NOT NULL, size BIGINT NOT NULL, started_ms BIGINT NOT NULL, PRIMARY KEY (address, person))
            """,
            "CREATE TABLE IF NOT EXISTS hub_file_quotas(person TEXT PRIMARY KEY, quota_bytes BIGINT NOT NULL)",
        ])

    /// A person's delivery channels (docs/hub.md, "Delivery channels"): where the hub itself
    /// sends the space notifications filed for them, besides their devices — a webhook (its URL
    /// and the secret each POST is signed with; the hub needs the secret itself to sign, so it is
    /// kept as it is) or an e-mail address (their account's, or another one once the code mailed
    /// there is entered back: `confirmed`, the code's SHA-256, expiry and wrong tries); optionally
    /// only one plugin's. Each delivery is one
    /// row per (notification key, channel), queued in the relay's transaction, so a repeated relay
    /// sends nothing twice; a sent or dropped row keeps its outcome, not its document.
    static let version9 = HubMigration(
        version: 9,
        sqlite: [
            """
            CREATE TABLE IF NOT EXISTS hub_channels(
                id TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES hub_people(id),
                kind TEXT NOT NULL CHECK (kind IN ('webhook', 'email')), target TEXT NOT NULL, secret TEXT, plugin TEXT,
                created_ms INTEGER NOT NULL, confirmed INTEGER NOT NULL DEFAULT 1, code_sha256 BLOB, code_expires_ms INTEGER,
                code_attempts INTEGER NOT NULL DEFAULT 0)
            """,
            "CREATE INDEX IF NOT EXISTS hub_channels_person ON hub_channels(person)",
            """
            CREATE TABLE IF NOT EXISTS hub_channel_deliveries(
                notification TEXT NOT NULL, channel TEXT NOT NULL, person TEXT NOT NULL, document TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'dropped')), attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_ms INTEGER NOT NULL, created_ms INTEGER NOT NULL, settled_ms INTEGER, last_error TEXT,
                PRIMARY KEY (notification, channel))
            """,
            "CREATE INDEX IF NOT EXISTS hub_channel_deliveries_due ON hub_channel_deliveries(next_attempt_ms) WHERE state = 'pending'",
        ],
        postgres: [
            """
            CREATE TABLE IF NOT EXISTS hub_channels(
                id TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES hub_people(id),
                kind TEXT NOT NULL CHECK (kind IN ('webhook', 'email')), target TEXT NOT NULL, secret TEXT, plugin TEXT,
                created_ms BIGINT NOT NULL, confirmed INTEGER NOT NULL DEFAULT 1, code_sha256 BYTEA, code_expires_ms BIGINT,
                code_attempts INTEGER NOT NULL DEFAULT 0)
            """,
            "CREATE INDEX IF NOT EXISTS hub_channels_person ON hub_channels(person)",
            """
            CREATE TABLE IF NOT EXISTS hub_channel_deliveries(
                notification TEXT NOT NULL, channel TEXT NOT NULL, person TEXT NOT NULL, document TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'dropped')), attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_ms BIGINT NOT NULL, created_ms BIGINT NOT NULL, settled_ms BIGINT, last_error TEXT,
                PRIMARY KEY (notification, channel))
            """,
            "CREATE INDEX IF NOT EXISTS hub_channel_deliveries_due ON hub_channel_deliveries(next_attempt_ms) WHERE state = 'pending'",
        ])

    /// Mail a person sends through the hub (docs/hub.md, "Mail to one address"): the sender (for
    /// the per-person daily limit), the `Reply-To` address, and one attachment as base64 text
    /// (TEXT in both databases), which goes with the body once the message is sent.
    static let version10 = HubMigration(version: 10, sqlite: version10Statements, postgres: version10Statements)
    /// The same statements in both databases.
    private static let version10Statements = [
        "ALTER TABLE hub_mail_outbox ADD COLUMN sender TEXT",
        "ALTER TABLE hub_mail_outbox ADD COLUMN reply_to TEXT",
        "ALTER TABLE hub_mail_outbox ADD COLUMN attachment_name TEXT",
        "ALTER TABLE hub_mail_outbox ADD COLUMN attachment_type TEXT",
        "ALTER TABLE hub_mail_outbox ADD COLUMN attachment_base64 TEXT",
        "CREATE INDEX IF NOT EXISTS hub_mail_outbox_sender ON hub_mail_outbox(sender, created_ms) WHERE sender IS NOT NULL",
    ]

    /// A relayed notification's priority and its catalogue message (JSON text; SDK 1.8), kept with
    /// each person's copy so their devices show it in their own language.
    static let version11 = HubMigration(version: 11, sqlite: version11Statements, postgres: version11Statements)
    private static let version11Statements = [
        "ALTER TABLE hub_inbox ADD COLUMN priority TEXT NOT NULL DEFAULT 'normal'",
        "ALTER TABLE hub_inbox ADD COLUMN message TEXT",
    ]

    /// Each space's changes in arrival order (`HubStore.pull`, `hasChanges`): a device reads its
    /// person's spaces one index range each, so a pull costs the changes it returns, not every
    /// change all other people pushed since its cursor (issue 48, `tessera-bench hub-load`).
    static let version12 = HubMigration(version: 12, sqlite: version12Statements, postgres: version12Statements)
    private static let version12Statements = ["CREATE INDEX IF NOT EXISTS hub_changes_space ON hub_changes(plugin, space, seq)"]

    /// The version of a hub database written before `_tessera_schema`: SQLite kept it in
    /// `user_version` (0 for the first hub, whose tables lacked nothing else), PostgreSQL in
    /// `hub_schema`, whose version 1 already held what the SQLite store's version 2 holds.
    static func legacyVersion(on sql: any HubSQL, dialect: HubSQLDialect) async throws -> Int {
        switch dialect {
        case .sqlite:
            guard try await sql.fetchOne("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'hub_devices'") != nil else { return 0 }
            let userVersion = try await sql.fetchOne("PRAGMA user_version")?.first?.integer ?? 0
            return max(1, Int(userVersion))
        case .postgresql:
            let exists = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?"
            if try await sql.fetchOne(exists, [.text("hub_schema")])?.first?.integer ?? 0 > 0 {
                let version = try await sql.fetchOne("SELECT MAX(version) FROM hub_schema")?.first?.integer ?? 1
                return Int(version) + 1
            }
            return try await sql.fetchOne(exists, [.text("hub_devices")])?.first?.integer ?? 0 > 0 ? 2 : 0
        }
    }
}

/// One step of the hub's schema, in both databases' SQL: lists of single statements (PostgreSQL
/// runs one statement per query), which may use `:now_ms`, the hub's clock in milliseconds.
struct HubMigration: Sendable {
    let version: Int
    let sqlite: [String]
    let postgres: [String]

    func statements(for dialect: HubSQLDialect) -> [String] {
        dialect == .sqlite ? sqlite : postgres
    }

    /// The step as the rules see it: its statements in `dialect`, as recorded when applied.
    func storeMigration(for dialect: HubSQLDialect) -> StoreMigration {
        StoreMigration(version: version, sql: statements(for: dialect).joined(separator: ";\n"))
    }
}
