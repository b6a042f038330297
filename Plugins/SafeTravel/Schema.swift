import TesseraSDK

/// The module's tables (specs/safe-travel.md §7.3, adapted to the host).
///
/// Synced tables hold the traveller's records in their travel space; every NOT NULL column has a
/// default and there are no UNIQUE or foreign keys, so that they can be merged (docs/sync.md).
/// Decisions are separate rows with deterministic ids (`alerts`, `checkins`), so that the
/// traveller's device and a watching host that reach the same decision write the same row.
/// `account`, `pin`, `guardians`, `sos_arming`, `last_fix` and `handled` are this device's alone: the PIN's
/// hash never leaves it.
enum Schema {
    static let synced = ["trips", "trip_plan", "trip_activities", "destinations", "sos", "sos_positions",
                         "checkin_requests", "checkins", "checkin_answers", "alerts", "alert_acks", "places"]

    static let migrations = [StorageMigration(version: 1, sql: """
        CREATE TABLE account (id TEXT PRIMARY KEY, username TEXT NOT NULL DEFAULT '', space_id TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE pin (id TEXT PRIMARY KEY, hash TEXT NOT NULL DEFAULT '', failed INTEGER NOT NULL DEFAULT 0,
            locked_until TEXT NOT NULL DEFAULT '', set_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE guardians (id TEXT PRIMARY KEY, username TEXT NOT NULL DEFAULT '', direction TEXT NOT NULL DEFAULT 'outgoing',
            status TEXT NOT NULL DEFAULT 'PENDING', invitation_id TEXT NOT NULL DEFAULT '', their_space TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL DEFAULT '', accepted_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE sos_arming (id TEXT PRIMARY KEY, touch_down_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE last_fix (id TEXT PRIMARY KEY, lat REAL NOT NULL DEFAULT 0, lon REAL NOT NULL DEFAULT 0, accuracy REAL,
            battery INTEGER, fix_at TEXT NOT NULL DEFAULT '', device TEXT NOT NULL DEFAULT '');

        CREATE TABLE destinations (id TEXT PRIMARY KEY, traveller TEXT NOT NULL DEFAULT '', name TEXT NOT NULL DEFAULT '',
            lat REAL NOT NULL DEFAULT 0, lon REAL NOT NULL DEFAULT 0, is_favourite INTEGER NOT NULL DEFAULT 0,
            last_used_at TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE trips (id TEXT PRIMARY KEY, traveller TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT 'ACTIVE',
            destination_id TEXT NOT NULL DEFAULT '', destination_name TEXT NOT NULL DEFAULT '', dest_lat REAL, dest_lon REAL,
            expected_arrival_at TEXT NOT NULL DEFAULT '', started_at TEXT NOT NULL DEFAULT '', ended_at TEXT NOT NULL DEFAULT '',
            next_plan_index INTEGER NOT NULL DEFAULT 0, route TEXT NOT NULL DEFAULT '', arrived_at TEXT NOT NULL DEFAULT '',
            eta_passed_at TEXT NOT NULL DEFAULT '', last_seen_at TEXT NOT NULL DEFAULT '', last_lat REAL, last_lon REAL,
            last_accuracy REAL, last_fix_at TEXT NOT NULL DEFAULT '', last_battery INTEGER, last_position_at TEXT NOT NULL DEFAULT '',
            off_route_since TEXT NOT NULL DEFAULT '', acknowledged_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX trips_by_state ON trips (state, traveller);
        CREATE TABLE trip_plan (id TEXT PRIMARY KEY, trip_id TEXT NOT NULL DEFAULT '', position INTEGER NOT NULL DEFAULT 0,
            action TEXT NOT NULL DEFAULT '');
        CREATE TABLE trip_activities (id TEXT PRIMARY KEY, trip_id TEXT NOT NULL DEFAULT '', type TEXT NOT NULL DEFAULT 'SYSTEM',
            created_at TEXT NOT NULL DEFAULT '', lat REAL, lon REAL, accuracy REAL, battery INTEGER, message TEXT NOT NULL DEFAULT '',
            file_ref TEXT NOT NULL DEFAULT '', quick_action TEXT NOT NULL DEFAULT '');
        CREATE INDEX trip_activities_by_trip ON trip_activities (trip_id, created_at);

        CREATE TABLE sos (id TEXT PRIMARY KEY, traveller TEXT NOT NULL DEFAULT '', trip_id TEXT NOT NULL DEFAULT '',
            state TEXT NOT NULL DEFAULT 'HOLDING', pressed_at TEXT NOT NULL DEFAULT '', released_at TEXT NOT NULL DEFAULT '',
            pin_entered_at TEXT NOT NULL DEFAULT '', deadline_at TEXT NOT NULL DEFAULT '', last_seen_at TEXT NOT NULL DEFAULT '',
            alerted_at TEXT NOT NULL DEFAULT '', alert_reason TEXT NOT NULL DEFAULT '', reported_safe_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE sos_positions (id TEXT PRIMARY KEY, sos_id TEXT NOT NULL DEFAULT '', recorded_at TEXT NOT NULL DEFAULT '',
            lat REAL, lon REAL, accuracy REAL, fix_at TEXT NOT NULL DEFAULT '', battery INTEGER);
        CREATE INDEX sos_positions_by_sos ON sos_positions (sos_id, recorded_at);

        CREATE TABLE checkin_requests (id TEXT PRIMARY KEY, requester TEXT NOT NULL DEFAULT '', target TEXT NOT NULL DEFAULT '',
            type TEXT NOT NULL DEFAULT 'ONE_TIME', starts_at TEXT NOT NULL DEFAULT '', ends_at TEXT NOT NULL DEFAULT '',
            period_minutes INTEGER NOT NULL DEFAULT 0, watchers TEXT NOT NULL DEFAULT '[]', state TEXT NOT NULL DEFAULT 'ACTIVE',
            created_at TEXT NOT NULL DEFAULT '', cancelled_at TEXT NOT NULL DEFAULT '');
        CREATE TABLE checkins (id TEXT PRIMARY KEY, request_id TEXT NOT NULL DEFAULT '', slot INTEGER NOT NULL DEFAULT 0,
            slot_at TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT 'PENDING', missed_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX checkins_by_request ON checkins (request_id, slot);
        CREATE TABLE checkin_answers (id TEXT PRIMARY KEY, confirmed_at TEXT NOT NULL DEFAULT '', by TEXT NOT NULL DEFAULT '',
            lat REAL, lon REAL, accuracy REAL);

        CREATE TABLE alerts (id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT '', subject_id TEXT NOT NULL DEFAULT '',
            traveller TEXT NOT NULL DEFAULT '', due_at TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '',
            summary TEXT NOT NULL DEFAULT '', repeats INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE alert_acks (id TEXT PRIMARY KEY, alert_id TEXT NOT NULL DEFAULT '', by TEXT NOT NULL DEFAULT '',
            acknowledged_at TEXT NOT NULL DEFAULT '');
        """),
        // Prompts to the traveller that went out, so that re-arming a trip never repeats one.
        StorageMigration(version: 2, sql: "CREATE TABLE handled (id TEXT PRIMARY KEY, at TEXT NOT NULL DEFAULT '');"),
        // The guardians' live view (LiveLinks.swift): a trip's links, synced in the traveller's space.
        StorageMigration(version: 3, sql: """
        CREATE TABLE live_links (id TEXT PRIMARY KEY, trip_id TEXT NOT NULL DEFAULT '', traveller TEXT NOT NULL DEFAULT '',
            token TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL DEFAULT '', expires_at TEXT NOT NULL DEFAULT '',
            revoked_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX live_links_by_token ON live_links (token);
        CREATE INDEX live_links_by_trip ON live_links (trip_id, created_at);
        """),
        // The live view of an SOS pressed outside a trip (LiveSOS.swift): its link names the SOS.
        StorageMigration(version: 4, sql: """
        ALTER TABLE live_links ADD COLUMN sos_id TEXT NOT NULL DEFAULT '';
        CREATE INDEX live_links_by_sos ON live_links (sos_id, created_at);
        """),
        // Places (Places.swift): the traveller's geofences, synced; whether this device is inside
        // each one is its own (`place_presence`), so a crossing is told once, by the traveller's device.
        // The purge (Retention.swift) finds finished trips by their end.
        StorageMigration(version: 5, sql: """
        CREATE TABLE places (id TEXT PRIMARY KEY, traveller TEXT NOT NULL DEFAULT '', name TEXT NOT NULL DEFAULT '',
            lat REAL NOT NULL DEFAULT 0, lon REAL NOT NULL DEFAULT 0, radius REAL NOT NULL DEFAULT 150,
            notify_arrive INTEGER NOT NULL DEFAULT 1, notify_leave INTEGER NOT NULL DEFAULT 1, created_at TEXT NOT NULL DEFAULT '');
        CREATE INDEX places_by_traveller ON places (traveller, name);
        CREATE TABLE place_presence (id TEXT PRIMARY KEY, state TEXT NOT NULL DEFAULT '', since TEXT NOT NULL DEFAULT '');
        CREATE INDEX trips_by_end ON trips (traveller, state, ended_at);
        """),
        // The wrong-PIN lockout escalates (Account.swift): how many lockouts in a row (the table is
        // the device's own, not synced).
        StorageMigration(version: 6, sql: "ALTER TABLE pin ADD COLUMN lockouts INTEGER NOT NULL DEFAULT 0;"),
    ]
}
