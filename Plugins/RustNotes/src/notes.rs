//! The Notes plugin's behaviour (notes-plugin-spec.md), apart from the C ABI: operations,
//! the reminder timer and the state carried across a hot swap. It talks to the host only through
//! the `Host` trait, so the tests below run it against a fake host, with no pointers in sight.

use std::sync::{Mutex, MutexGuard};

use crate::duration;
use crate::error::PluginError;
use crate::host::{Host, LogLevel};
use crate::json::{self, Value};
use crate::time;

/// The layout of the bytes `export_state` writes and `import_state` reads.
pub const STATE_SCHEMA: u32 = 1;

const OPERATIONS: [&str; 6] = ["add-note", "list-notes", "remind", "list-reminders", "stats", "echo"];
const REMINDER_TIMER: &str = "reminder";

const NOTE_MAX_CHARS: usize = 1000;
const REMINDER_MAX_CHARS: usize = 200;
const DEFAULT_LIMIT: i64 = 50;
const MAX_LIMIT: i64 = 500;

/// What an instance keeps in memory.
struct State {
    /// Operation calls answered since the plugin was first started, successful or not.
    handled: i64,
    /// ISO time of the first start; None until then.
    since: Option<String>,
    /// The counter that ends every id, so two ids made in the same millisecond still differ.
    next_id: i64,
}

/// One instance of the plugin.
pub struct Notes {
    // The host never calls one instance from two threads at once, but a Mutex makes that a fact
    // the compiler checks rather than a promise. It is never held across a call to the host, so a
    // host that answers on another thread, or calls back in, cannot deadlock on it.
    state: Mutex<State>,
}

impl Default for Notes {
    fn default() -> Self {
        Notes::new()
    }
}

impl Notes {
    pub fn new() -> Notes {
        // The id counter starts at 1 (the spec does not say; see README.md).
        Notes { state: Mutex::new(State { handled: 0, since: None, next_id: 1 }) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held (caught at the ABI) leaves three plain numbers and a
        // string, all still consistent, so carry on rather than fail every later call.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The next id number, taken for good: an id is never reused, even if its write then fails.
    fn take_id_number(&self) -> i64 {
        let mut state = self.state();
        let n = state.next_id;
        state.next_id = state.next_id.saturating_add(1);
        n
    }

    // -----------------------------------------------------------------------------------------
    // Lifecycle

    /// Starts the instance; `config` is the deployment's configuration, which this plugin has none of.
    pub fn start(&self, host: &dyn Host, _config: &[u8]) -> Result<Value, PluginError> {
        let now = clock_now(host)?;
        {
            let mut state = self.state();
            // In a hot swap import_state comes after this and puts back the first start's time.
            if state.since.is_none() {
                state.since = Some(iso(now)?);
            }
        }
        host.log(LogLevel::Info, "notes started");
        Ok(json::object(vec![
            ("operations", Value::Array(OPERATIONS.iter().map(|op| json::string(op)).collect())),
            ("timers", Value::Array(vec![json::string(REMINDER_TIMER)])),
        ]))
    }

    /// Answers one operation call; `call` is {"input": {...}, "principal": {...}}.
    pub fn handle(&self, host: &dyn Host, operation: &str, call: &[u8]) -> Result<Value, PluginError> {
        // Every call counts, whatever its answer — an unknown operation's too.
        {
            let mut state = self.state();
            state.handled = state.handled.saturating_add(1);
        }
        if !OPERATIONS.contains(&operation) {
            return Err(PluginError::new("not_found", &format!("This plugin has no operation '{}'.", operation)));
        }
        let call = json::parse(call).map_err(|_| PluginError::new("invalid_input", "The call is not JSON."))?;
        let empty = Value::Object(Vec::new());
        let input = call.get("input").unwrap_or(&empty);
        match operation {
            "add-note" => self.add_note(host, input),
            "list-notes" => list_notes(host, input),
            "remind" => self.remind(host, input),
            "list-reminders" => list_reminders(host),
            // Does nothing, so that a benchmark measures the call path alone (as the Swift example's).
            "echo" => Ok(input.clone()),
            _ => Ok(self.stats()), // "stats"
        }
    }

    /// Receives a delivery from the host; `Ok(None)` is TESSERA_OK with an empty result.
    pub fn receive(&self, host: &dyn Host, kind: &str, payload: &[u8]) -> Result<Option<Value>, PluginError> {
        if kind != "timer" {
            return Ok(None); // no events or location feed asked for: ignore whatever comes
        }
        let firing = json::parse(payload).map_err(|_| PluginError::new("invalid_input", "The timer's firing is not JSON."))?;
        if firing.get("name").and_then(Value::as_str) != Some(REMINDER_TIMER) {
            return Ok(None);
        }
        reminder_fired(host, &firing)?;
        Ok(None)
    }

    /// The state a new build takes over in a hot swap: (schema, bytes).
    pub fn export_state(&self) -> (u32, Vec<u8>) {
        let state = self.state();
        let since = match &state.since {
            Some(s) => json::string(s),
            None => Value::Null,
        };
        let bytes = json::object(vec![
            ("handled", Value::Int(state.handled)),
            ("since", since),
            ("next", Value::Int(state.next_id)),
        ])
        .to_json()
        .into_bytes();
        (STATE_SCHEMA, bytes)
    }

    /// Takes over the state a previous build exported, replacing handled, since and the id counter.
    pub fn import_state(&self, schema: u32, bytes: &[u8]) -> Result<(), PluginError> {
        if schema != STATE_SCHEMA {
            return Err(PluginError::new(
                "invalid_input",
                &format!("This build cannot read the state of schema {}.", schema),
            ));
        }
        if bytes.is_empty() {
            return Ok(()); // the previous build had nothing to carry over
        }
        let unreadable = || PluginError::new("invalid_input", "The state of schema 1 could not be read.");
        let value = json::parse(bytes).map_err(|_| unreadable())?;
        let handled = value.get("handled").and_then(Value::as_i64).filter(|n| *n >= 0).ok_or_else(unreadable)?;
        let next = value.get("next").and_then(Value::as_i64).filter(|n| *n >= 0).ok_or_else(unreadable)?;
        let since = match value.get("since") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Null) => None, // exported before any start
            _ => return Err(unreadable()),
        };
        let mut state = self.state();
        state.handled = handled;
        state.since = since;
        state.next_id = next;
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Operations

    fn add_note(&self, host: &dyn Host, input: &Value) -> Result<Value, PluginError> {
        let text = checked_text(
            input,
            NOTE_MAX_CHARS,
            "A note needs some text.",
            "A note can be at most 1000 characters long.",
        )?;
        let now = clock_now(host)?;
        let at = iso(now)?;
        let id = format!("note-{}-{}", wire_millis(now)?, self.take_id_number());
        storage_write(host, "put", "notes", &id, vec![("text", Value::String(text)), ("created_at", json::string(&at))])?;
        Ok(json::object(vec![("id", Value::String(id)), ("at", Value::String(at))]))
    }

    fn remind(&self, host: &dyn Host, input: &Value) -> Result<Value, PluginError> {
        let text = checked_text(
            input,
            REMINDER_MAX_CHARS,
            "A reminder needs some text.",
            // The spec names no sentence for this one; it follows the note's.
            "A reminder can be at most 200 characters long.",
        )?;
        let seconds = input
            .get("in")
            .and_then(Value::as_str)
            .and_then(duration::parse_seconds)
            .ok_or_else(|| PluginError::invalid_input("in", "Say how long to wait, like 30m, 2h or 1d."))?;
        let now = clock_now(host)?;
        let due = now + seconds as f64;
        let due_iso = iso(due)?;
        let id = format!("reminder-{}-{}", wire_millis(now)?, self.take_id_number());
        storage_write(
            host,
            "put",
            "reminders",
            &id,
            vec![("text", Value::String(text)), ("due_at", json::string(&due_iso)), ("fired_at", Value::Null)],
        )?;
        host.call(
            "clock.schedule",
            &json::object(vec![
                ("key", json::string(&id)),
                ("name", json::string(REMINDER_TIMER)),
                ("fireAt", Value::Float(due)),
                ("payload", json::object(vec![("id", json::string(&id))])),
            ]),
        )?;
        Ok(json::object(vec![("id", Value::String(id)), ("at", Value::String(due_iso))]))
    }

    fn stats(&self) -> Value {
        let state = self.state();
        let since = match &state.since {
            Some(s) => json::string(s),
            None => Value::Null,
        };
        json::object(vec![("handled", Value::Int(state.handled)), ("since", since)])
    }
}

fn list_notes(host: &dyn Host, input: &Value) -> Result<Value, PluginError> {
    let limit = match input.get("limit") {
        None => DEFAULT_LIMIT,
        // An explicit null is "anything else", like a string or 2.5.
        Some(v) => v
            .as_i64()
            .filter(|n| (1..=MAX_LIMIT).contains(n))
            .ok_or_else(|| PluginError::invalid_input("limit", "Ask for between 1 and 500 notes."))?,
    };
    let rows = storage_query(
        host,
        "SELECT id, text, created_at FROM notes ORDER BY created_at DESC, id DESC LIMIT ?",
        vec![Value::Int(limit)],
    )?;
    let mut notes = Vec::with_capacity(rows.len());
    for row in &rows {
        notes.push(json::object(vec![
            ("id", row.text("id")?),
            ("text", row.text("text")?),
            ("at", row.text("created_at")?),
        ]));
    }
    Ok(json::object(vec![("notes", Value::Array(notes))]))
}

fn list_reminders(host: &dyn Host) -> Result<Value, PluginError> {
    let rows = storage_query(host, "SELECT id, text, due_at, fired_at FROM reminders ORDER BY due_at, id", Vec::new())?;
    let mut reminders = Vec::with_capacity(rows.len());
    for row in &rows {
        reminders.push(json::object(vec![
            ("id", row.text("id")?),
            ("text", row.text("text")?),
            ("due", row.text("due_at")?),
            ("fired", row.text_or_null("fired_at")?), // the ISO string, or null while it has not fired
        ]));
    }
    Ok(json::object(vec![("reminders", Value::Array(reminders))]))
}

/// The "reminder" timer fired: mark the reminder fired, then tell the user.
fn reminder_fired(host: &dyn Host, firing: &Value) -> Result<(), PluginError> {
    let id = firing.get("payload").and_then(|p| p.get("id")).and_then(Value::as_str);
    let fired_at = firing.get("firedAt").and_then(Value::as_f64);
    let (id, fired_at, fired_iso) = match (id, fired_at, fired_at.and_then(time::iso_from_wire)) {
        (Some(id), Some(fired_at), Some(fired_iso)) => (id.to_string(), fired_at, fired_iso),
        _ => {
            return Err(PluginError::new(
                "invalid_input",
                "A reminder's timer must carry the reminder's id and when it fired.",
            ))
        }
    };

    // The spec says only "query the reminder's text by id"; this is that query.
    let rows = storage_query(host, "SELECT text FROM reminders WHERE id = ?", vec![json::string(&id)])?;
    let text = match rows.first() {
        None => return Ok(()), // deleted since, or never written: nothing to remind of
        Some(row) => row.text("text")?,
    };
    storage_write(host, "patch", "reminders", &id, vec![("fired_at", Value::String(fired_iso))])?;
    let notification = json::object(vec![
        ("key", json::string(&id)),
        ("title", json::string("Reminder")),
        ("body", text),
        ("payload", json::object(vec![("id", json::string(&id))])),
        ("recipient", json::string("user")),
        ("schedule", json::object(vec![("at", Value::Float(fired_at))])),
    ]);
    match host.call("notifications.schedule", &notification) {
        Ok(_) => Ok(()),
        // Notifications are optional for this plugin: without the grant the reminder is still
        // marked fired and shows in list-reminders, but nobody is told.
        // The host refuses a capability the operator did not grant with "not_granted".
        Err(e) if e.code == "not_granted" => {
            host.log(
                LogLevel::Warning,
                &format!("Reminder {} fired, but notifications are not granted: nobody is told.", id),
            );
            Ok(())
        }
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs

/// The input's `text`, trimmed, if it is non-empty and at most `max` characters (Unicode scalar
/// values, which is what Rust's `chars` counts).
fn checked_text(input: &Value, max: usize, empty: &str, too_long: &str) -> Result<String, PluginError> {
    // A missing or non-string text has no text in it either.
    let text = input.get("text").and_then(Value::as_str).unwrap_or("").trim();
    if text.is_empty() {
        return Err(PluginError::invalid_input("text", empty));
    }
    if text.chars().count() > max {
        return Err(PluginError::invalid_input("text", too_long));
    }
    Ok(text.to_string())
}

// ---------------------------------------------------------------------------------------------
// Times

/// The host's time now, in wire seconds.
fn clock_now(host: &dyn Host) -> Result<f64, PluginError> {
    host.call("clock.now", &Value::Null)?
        .as_f64()
        .ok_or_else(|| PluginError::internal("The host's clock answered something other than a time."))
}

/// A time the host gave that ISO 8601 cannot show.
fn out_of_range() -> PluginError {
    PluginError::internal("The host's clock gave a time outside the years 1 to 9999.")
}

fn iso(wire: f64) -> Result<String, PluginError> {
    time::iso_from_wire(wire).ok_or_else(out_of_range)
}

/// The wire time in whole milliseconds, for ids, rounded down (towards the past, as the ISO
/// time is): floor(wire × 1000), the same double arithmetic as the C plugin's.
fn wire_millis(wire: f64) -> Result<i64, PluginError> {
    let ms = wire * 1000.0;
    if !(ms > -9.2e18 && ms < 9.2e18) {
        return Err(out_of_range()); // beyond i64, or NaN
    }
    Ok(ms.floor() as i64)
}

// ---------------------------------------------------------------------------------------------
// Storage

/// One `storage.write` of one change: {"changes": [{"op", "table", "id", "values"}]}.
fn storage_write(host: &dyn Host, op: &str, table: &str, id: &str, values: Vec<(&str, Value)>) -> Result<(), PluginError> {
    let change = json::object(vec![
        ("op", json::string(op)),
        ("table", json::string(table)),
        ("id", json::string(id)),
        ("values", json::object(values)),
    ]);
    host.call("storage.write", &json::object(vec![("changes", Value::Array(vec![change]))]))?;
    Ok(())
}

/// One row of a query's answer, by column name.
struct Row {
    columns: Vec<(String, Value)>,
}

impl Row {
    fn column(&self, name: &str) -> Option<&Value> {
        self.columns.iter().find(|(column, _)| column == name).map(|(_, v)| v)
    }

    /// A TEXT column's value; anything else (a missing column, a number, null) means the rows
    /// are not the ones this plugin wrote.
    fn text(&self, name: &str) -> Result<Value, PluginError> {
        match self.column(name) {
            Some(Value::String(s)) => Ok(Value::String(s.clone())),
            _ => Err(unreadable_rows()),
        }
    }

    /// A nullable TEXT column's value: a string or null.
    fn text_or_null(&self, name: &str) -> Result<Value, PluginError> {
        match self.column(name) {
            Some(Value::Null) => Ok(Value::Null),
            _ => self.text(name),
        }
    }
}

fn unreadable_rows() -> PluginError {
    PluginError::internal("The database answered rows this plugin cannot read.")
}

/// `storage.query` with `sql` and `parameters`; its answer [{"c": [names], "v": [values]}, …] as rows.
fn storage_query(host: &dyn Host, sql: &str, parameters: Vec<Value>) -> Result<Vec<Row>, PluginError> {
    let answer = host.call(
        "storage.query",
        &json::object(vec![("sql", json::string(sql)), ("parameters", Value::Array(parameters))]),
    )?;
    let unreadable = unreadable_rows;
    let mut rows = Vec::new();
    for row in answer.as_array().ok_or_else(unreadable)? {
        let names = row.get("c").and_then(Value::as_array).ok_or_else(unreadable)?;
        let values = row.get("v").and_then(Value::as_array).ok_or_else(unreadable)?;
        if names.len() != values.len() {
            return Err(unreadable());
        }
        let mut columns = Vec::with_capacity(names.len());
        for (name, value) in names.iter().zip(values) {
            columns.push((name.as_str().ok_or_else(unreadable)?.to_string(), value.clone()));
        }
        rows.push(Row { columns });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A host that answers from a script and remembers every call and log line.
    struct FakeHost {
        now: Value,
        calls: RefCell<Vec<(String, String)>>,
        logs: RefCell<Vec<(LogLevel, String)>>,
        rows: Value,
        notifications_forbidden: bool,
    }

    impl FakeHost {
        fn new() -> FakeHost {
            FakeHost {
                now: Value::Int(796_809_600),
                calls: RefCell::new(Vec::new()),
                logs: RefCell::new(Vec::new()),
                rows: Value::Array(Vec::new()),
                notifications_forbidden: false,
            }
        }
        fn sent(&self) -> Vec<(String, String)> {
            self.calls.borrow().clone()
        }
    }

    impl Host for FakeHost {
        fn call(&self, method: &str, params: &Value) -> Result<Value, PluginError> {
            self.calls.borrow_mut().push((method.to_string(), params.to_json()));
            match method {
                "clock.now" => Ok(self.now.clone()),
                "storage.query" => Ok(self.rows.clone()),
                "notifications.schedule" if self.notifications_forbidden => {
                    Err(PluginError::new("not_granted", "notifications is not granted"))
                }
                _ => Ok(Value::Null),
            }
        }
        fn log(&self, level: LogLevel, message: &str) {
            self.logs.borrow_mut().push((level, message.to_string()));
        }
    }

    fn call(input: &str) -> Vec<u8> {
        format!("{{\"input\": {}, \"principal\": {{\"id\": \"p\", \"role\": \"user\"}}}}", input).into_bytes()
    }

    #[test]
    fn start_add_and_stats() {
        let host = FakeHost::new();
        let notes = Notes::new();
        let started = notes.start(&host, b"{}").unwrap();
        assert_eq!(
            started.to_json(),
            r#"{"operations":["add-note","list-notes","remind","list-reminders","stats","echo"],"timers":["reminder"]}"#
        );
        assert_eq!(host.logs.borrow()[0], (LogLevel::Info, "notes started".to_string()));

        let out = notes.handle(&host, "add-note", &call(r#"{"text": "  hi \"there\" \\ 😀 \u00e9 \n"}"#)).unwrap();
        assert_eq!(out.to_json(), r#"{"id":"note-796809600000-1","at":"2026-04-02T08:00:00Z"}"#);
        assert_eq!(
            host.sent()[2],
            (
                "storage.write".to_string(),
                r#"{"changes":[{"op":"put","table":"notes","id":"note-796809600000-1","values":{"text":"hi \"there\" \\ 😀 é","created_at":"2026-04-02T08:00:00Z"}}]}"#.to_string()
            )
        );
        let err = notes.handle(&host, "add-note", &call(r#"{"text": " \t "}"#)).unwrap_err();
        assert_eq!(err, PluginError::invalid_input("text", "A note needs some text."));
        let long = "é".repeat(1001);
        let err = notes.handle(&host, "add-note", &call(&format!("{{\"text\": \"{}\"}}", long))).unwrap_err();
        assert_eq!(err.message, "A note can be at most 1000 characters long.");
        assert!(notes.handle(&host, "add-note", &call(&format!("{{\"text\": \"{}\"}}", "é".repeat(1000)))).is_ok());
        let err = notes.handle(&host, "nope", b"{}").unwrap_err();
        assert_eq!(err.to_json().to_json(), r#"{"code":"not_found","message":"This plugin has no operation 'nope'."}"#);
        assert_eq!(notes.handle(&host, "stats", &call("{}")).unwrap().to_json(), r#"{"handled":6,"since":"2026-04-02T08:00:00Z"}"#);
    }

    #[test]
    fn remind_and_fire() {
        let mut host = FakeHost::new();
        host.now = Value::Float(796_809_600.5);
        let notes = Notes::new();
        notes.start(&host, b"{}").unwrap();
        let out = notes.handle(&host, "remind", &call(r#"{"text": "tea", "in": "1h30m"}"#)).unwrap();
        assert_eq!(out.to_json(), r#"{"id":"reminder-796809600500-1","at":"2026-04-02T09:30:00Z"}"#);
        let sent = host.sent();
        assert_eq!(sent[3].1, r#"{"key":"reminder-796809600500-1","name":"reminder","fireAt":796815000.5,"payload":{"id":"reminder-796809600500-1"}}"#);
        for bad in [r#""""#, r#""0m""#, r#""1y""#, r#""367d""#, "5"] {
            let err = notes.handle(&host, "remind", &call(&format!("{{\"text\": \"x\", \"in\": {}}}", bad))).unwrap_err();
            assert_eq!(err, PluginError::invalid_input("in", "Say how long to wait, like 30m, 2h or 1d."));
        }

        host.rows = json::parse(br#"[{"c":["text"],"v":["tea"]}]"#).unwrap();
        host.notifications_forbidden = true;
        host.calls.borrow_mut().clear();
        let firing = br#"{"key":"k","name":"reminder","dueAt":796815000.5,"firedAt":796815001,"payload":{"id":"r1"}}"#;
        assert_eq!(notes.receive(&host, "timer", firing), Ok(None));
        let sent = host.sent();
        assert_eq!(sent[1].1, r#"{"changes":[{"op":"patch","table":"reminders","id":"r1","values":{"fired_at":"2026-04-02T09:30:01Z"}}]}"#);
        assert_eq!(sent[2].1, r#"{"key":"r1","title":"Reminder","body":"tea","payload":{"id":"r1"},"recipient":"user","schedule":{"at":796815001}}"#);
        assert_eq!(host.logs.borrow().last().unwrap().0, LogLevel::Warning);

        host.rows = Value::Array(Vec::new());
        host.calls.borrow_mut().clear();
        assert_eq!(notes.receive(&host, "timer", firing), Ok(None));
        assert_eq!(host.sent().len(), 1); // the query only
        assert_eq!(notes.receive(&host, "event", b"not json"), Ok(None));
    }

    #[test]
    fn lists() {
        let mut host = FakeHost::new();
        host.rows = json::parse(
            br#"[{"c":["id","text","due_at","fired_at"],"v":["r1","a","2026-04-01T00:30:00Z",null]},{"c":["id","text","due_at","fired_at"],"v":["r2","b","x","y"]}]"#,
        )
        .unwrap();
        let notes = Notes::new();
        let out = notes.handle(&host, "list-reminders", &call("{}")).unwrap();
        assert_eq!(
            out.to_json(),
            r#"{"reminders":[{"id":"r1","text":"a","due":"2026-04-01T00:30:00Z","fired":null},{"id":"r2","text":"b","due":"x","fired":"y"}]}"#
        );
        host.rows = json::parse(br#"[{"c":["id","text","created_at"],"v":["n1","a \"q\"","2026-04-02T08:00:00Z"]}]"#).unwrap();
        assert_eq!(
            notes.handle(&host, "list-notes", &call("{}")).unwrap().to_json(),
            r#"{"notes":[{"id":"n1","text":"a \"q\"","at":"2026-04-02T08:00:00Z"}]}"#
        );
        for (limit, ok) in [("1", true), ("500", true), ("5.0", false), ("0", false), ("501", false), ("2.5", false), ("\"5\"", false), ("null", false)] {
            let r = notes.handle(&host, "list-notes", &call(&format!("{{\"limit\": {}}}", limit)));
            assert_eq!(r.is_ok(), ok, "limit {}", limit);
            if !ok {
                assert_eq!(r.unwrap_err(), PluginError::invalid_input("limit", "Ask for between 1 and 500 notes."));
            }
        }
        notes.handle(&host, "list-notes", &call("{}")).unwrap();
        assert_eq!(
            host.sent().last().unwrap().1,
            r#"{"sql":"SELECT id, text, created_at FROM notes ORDER BY created_at DESC, id DESC LIMIT ?","parameters":[50]}"#
        );
        host.rows = json::string("oops");
        assert_eq!(notes.handle(&host, "list-notes", &call("{}")).unwrap_err().code, "internal");
        host.rows = json::parse(br#"[{"c":["id","text","due_at","fired_at"],"v":["r2","b","x",{"r":1.5}]}]"#).unwrap();
        assert_eq!(
            notes.handle(&host, "list-reminders", &call("{}")).unwrap_err().message,
            "The database answered rows this plugin cannot read."
        );
    }

    #[test]
    fn state_round_trip() {
        let host = FakeHost::new();
        let old = Notes::new();
        old.start(&host, b"{}").unwrap();
        old.handle(&host, "stats", &call("{}")).unwrap();
        old.handle(&host, "add-note", &call(r#"{"text":"x"}"#)).unwrap();
        let (schema, bytes) = old.export_state();
        assert_eq!((schema, String::from_utf8(bytes.clone()).unwrap()), (1, r#"{"handled":2,"since":"2026-04-02T08:00:00Z","next":2}"#.to_string()));

        let mut later = FakeHost::new();
        later.now = Value::Int(796_900_000);
        let new = Notes::new();
        new.start(&later, b"{}").unwrap();
        assert_eq!(new.import_state(2, &bytes).unwrap_err().message, "This build cannot read the state of schema 2.");
        assert_eq!(new.import_state(1, b"{\"handled\": \"x\"}").unwrap_err().code, "invalid_input");
        new.import_state(1, &bytes).unwrap();
        assert_eq!(new.handle(&later, "stats", &call("{}")).unwrap().to_json(), r#"{"handled":3,"since":"2026-04-02T08:00:00Z"}"#);
        let out = new.handle(&later, "add-note", &call(r#"{"text":"y"}"#)).unwrap();
        assert_eq!(out.get("id").unwrap().as_str(), Some("note-796900000000-2"));
    }

    #[test]
    fn passes_host_errors_on() {
        struct Refusing;
        impl Host for Refusing {
            fn call(&self, _: &str, _: &Value) -> Result<Value, PluginError> {
                Err(PluginError::new("forbidden", "clock is not granted"))
            }
            fn log(&self, _: LogLevel, _: &str) {}
        }
        let notes = Notes::new();
        assert_eq!(notes.start(&Refusing, b"{}").unwrap_err(), PluginError::new("forbidden", "clock is not granted"));
        assert_eq!(
            notes.handle(&Refusing, "add-note", &call(r#"{"text":"x"}"#)).unwrap_err(),
            PluginError::new("forbidden", "clock is not granted")
        );
    }
}
