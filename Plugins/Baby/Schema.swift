import TesseraSDK

/// The module's tables. Every table but `reminders`, `profile` and `exports` syncs (the manifest's `sync`):
/// each NOT NULL column has a default, and there are no UNIQUE or foreign keys, so rows can merge
/// in any order. The split follows the permission matrix (specs/baby-diary.md §5), so that a
/// per-table role rule can state it: `children` and the health card (`health_cards`,
/// `health_items`) only owners and parents write; `records` and `contacts` everyone, a guardian
/// only its own rows; `access` only the owner. A child's rows live in the child's space.
/// `record_photos` holds a record's photos, one address a row, so each is a file reference.
enum BabySchema {
    static let migrations: [StorageMigration] = [StorageMigration(version: 1, sql: """
        CREATE TABLE children (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', birth_date TEXT NOT NULL DEFAULT '', sex TEXT NOT NULL DEFAULT '',
            photo TEXT NOT NULL DEFAULT '', created_by TEXT NOT NULL DEFAULT '', author_name TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE health_cards (id TEXT PRIMARY KEY, child_id TEXT NOT NULL DEFAULT '', blood_group TEXT NOT NULL DEFAULT '',
            insurer TEXT NOT NULL DEFAULT '');
        CREATE TABLE health_items (id TEXT PRIMARY KEY, child_id TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '',
            name TEXT NOT NULL DEFAULT '', severity TEXT NOT NULL DEFAULT '', occurred_at TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '', created_by TEXT NOT NULL DEFAULT '', author_name TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX health_items_by_child ON health_items (child_id, kind, occurred_at);
        CREATE INDEX health_items_timeline ON health_items (kind, occurred_at DESC, id DESC);
        CREATE TABLE records (id TEXT PRIMARY KEY, child_id TEXT NOT NULL DEFAULT '', type TEXT NOT NULL DEFAULT '',
            occurred_at TEXT NOT NULL DEFAULT '', ended_at TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '',
            value REAL, name TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '', photos TEXT NOT NULL DEFAULT '[]',
            problem_id TEXT NOT NULL DEFAULT '', contact_id TEXT NOT NULL DEFAULT '', doses TEXT NOT NULL DEFAULT '[]',
            created_by TEXT NOT NULL DEFAULT '', author_name TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX records_timeline ON records (occurred_at DESC, id DESC);
        CREATE INDEX records_by_child ON records (child_id, occurred_at DESC, id DESC);
        CREATE INDEX records_by_problem ON records (problem_id) WHERE problem_id <> '';
        CREATE TABLE contacts (id TEXT PRIMARY KEY, child_id TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT 'general',
            name TEXT NOT NULL DEFAULT '', email TEXT NOT NULL DEFAULT '', phone TEXT NOT NULL DEFAULT '',
            address TEXT NOT NULL DEFAULT '', specialization TEXT NOT NULL DEFAULT '', office_hours TEXT NOT NULL DEFAULT '',
            created_by TEXT NOT NULL DEFAULT '', author_name TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX contacts_by_child ON contacts (child_id, name);
        CREATE TABLE access (id TEXT PRIMARY KEY, child_id TEXT NOT NULL DEFAULT '', person TEXT NOT NULL DEFAULT '',
            level TEXT NOT NULL DEFAULT '', granted_by TEXT NOT NULL DEFAULT '', granted_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE suggestions (id TEXT PRIMARY KEY, field TEXT NOT NULL DEFAULT '', value TEXT NOT NULL DEFAULT '',
            last_used_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE reminders (id TEXT PRIMARY KEY, record_id TEXT NOT NULL DEFAULT '', child_id TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL DEFAULT '', fire_at TEXT NOT NULL DEFAULT '', rule TEXT NOT NULL DEFAULT '');
        CREATE INDEX reminders_by_record ON reminders (record_id);
        CREATE TABLE profile (id TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '');
        """),
        // A record's photos, one address per row (`RecordPhotos.swift`): the lists in
        // `records.photos` move here through the record API once the module runs, so they sync.
        StorageMigration(version: 2, sql: """
        CREATE TABLE record_photos (id TEXT PRIMARY KEY, record_id TEXT NOT NULL DEFAULT '', child_id TEXT NOT NULL DEFAULT '',
            address TEXT NOT NULL DEFAULT '', position INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX record_photos_by_record ON record_photos (record_id, position);
        """),
        // This device's PDF exports (`ExportDownload.swift`): who asked for which file. Local, like
        // `reminders`: not in the manifest's sync tables.
        StorageMigration(version: 3, sql: """
        CREATE TABLE exports (id TEXT PRIMARY KEY, address TEXT NOT NULL DEFAULT '', child_id TEXT NOT NULL DEFAULT '',
            principal TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX exports_by_address ON exports (address, principal);
        """),
        // Daily care (`Care.swift`): feeds, sleep, nappies, pumping, tummy time; a running timer
        // has no end yet (`end_ms` NULL). Synced in the child's space, like `records`.
        StorageMigration(version: 4, sql: """
        CREATE TABLE care (id TEXT PRIMARY KEY, child_id TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '',
            started_at TEXT NOT NULL DEFAULT '', start_ms INTEGER NOT NULL DEFAULT 0, ended_at TEXT NOT NULL DEFAULT '', end_ms INTEGER,
            method TEXT NOT NULL DEFAULT '', side TEXT NOT NULL DEFAULT '', amount_ml INTEGER, food TEXT NOT NULL DEFAULT '',
            nappy TEXT NOT NULL DEFAULT '', colour TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
            created_by TEXT NOT NULL DEFAULT '', author_name TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX care_by_child ON care (child_id, start_ms DESC, id DESC);
        CREATE INDEX care_by_kind ON care (child_id, kind, start_ms DESC);
        """),
        // Issue 41: how a length or height was measured (`lying`, `standing`; '' for records
        // written before, read as the position the WHO expects at the age) and oedema with a
        // weight (1: no weight-based score), as WHO Anthro takes them.
        StorageMigration(version: 5, sql: """
        ALTER TABLE records ADD COLUMN position TEXT NOT NULL DEFAULT '';
        ALTER TABLE records ADD COLUMN oedema INTEGER NOT NULL DEFAULT 0;
        """)]
}
