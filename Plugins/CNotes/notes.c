/*
 * notes.c — "Notes", the C example plugin of Tessera's C ABI (tessera_plugin.h).
 *
 * It keeps short notes and reminders in its own database. A reminder is a durable timer: when it
 * fires, the plugin marks the reminder's row and, if the operator granted notifications, tells the
 * user. Everything that crosses the boundary is JSON text (json.h); times travel as seconds since
 * 2001 and are shown as ISO 8601 (iso_time.h).
 *
 * Reading order: the instance; answering the host; calling the host; the operations; the timer;
 * the ABI functions and the table the entry symbol returns.
 *
 * The host calls an instance from one thread at a time, so an instance needs no lock, and
 * instances share nothing but constants.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_plugin.h"
#include "tessera_c_notes.h"

#include "duration.h"
#include "iso_time.h"
#include "json.h"
#include "utf8.h"

/* The stamp the host reads from the file before it loads it (gate 1): once per library. */
TESSERA_C_PLUGIN_STAMP

#define PLUGIN_ID "dev.tessera.c-notes"

/* The database's schema, applied by the host before start. A step, once shipped, never changes:
 * a later schema is a new step. */
static const char migrations[] =
    "[{\"version\": 1, \"sql\": \"CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, "
    "created_at TEXT NOT NULL); CREATE TABLE reminders (id TEXT PRIMARY KEY, text TEXT NOT NULL, "
    "due_at TEXT NOT NULL, fired_at TEXT);\"}]";

#define LIST_NOTES_SQL "SELECT id, text, created_at FROM notes ORDER BY created_at DESC, id DESC LIMIT ?"
#define LIST_REMINDERS_SQL "SELECT id, text, due_at, fired_at FROM reminders ORDER BY due_at, id"
#define REMINDER_TEXT_SQL "SELECT text FROM reminders WHERE id = ?"

enum {
    NOTE_MAX_CHARACTERS = 1000,
    REMINDER_MAX_CHARACTERS = 200,
    LIST_DEFAULT_LIMIT = 50,
    LIST_MAX_LIMIT = 500,
    REMINDER_MAX_WAIT = 366 * 86400, /* seconds */
    ID_SIZE = 64,                    /* "reminder-" and two int64 numbers, with room to spare */
};

/* The layout of what export_state writes: {"handled": N, "since": "…", "next": K}. */
#define STATE_SCHEMA 1u

/* ================================================================================================
 * The instance
 */

typedef struct notes {
    const tessera_host_api_t *host;
    void *host_context; /* the host's handle on this instance: passed back on every call */
    int64_t handled;    /* operation calls answered since the first start, carried across hot swaps */
    char *since;        /* ISO time of the first start; NULL until then */
    int64_t next_id;    /* the counter at the end of the next id */
} notes_t;

/* A malloc'd, NUL-terminated copy of `length` bytes, or NULL. */
static char *copy_text(const char *bytes, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy) {
        memcpy(copy, bytes, length);
        copy[length] = '\0';
    }
    return copy;
}

/* `before` + `middle` (`middle_length` bytes) + `after`, malloc'd: a sentence naming something. */
static char *join3(const char *before, const char *middle, size_t middle_length, const char *after)
{
    size_t before_length = strlen(before), after_length = strlen(after);
    char *text = malloc(before_length + middle_length + after_length + 1);
    if (text) {
        memcpy(text, before, before_length);
        memcpy(text + before_length, middle, middle_length);
        memcpy(text + before_length + middle_length, after, after_length + 1);
    }
    return text;
}

static void log_line(notes_t *notes, int32_t level, const char *message)
{
    notes->host->log(notes->host_context, level, (const uint8_t *)message, strlen(message));
}

/* ================================================================================================
 * Answering the host
 *
 * What the plugin returns is malloc'd here and freed by the host through notes_free_buffer.
 */

static const tessera_buffer_t empty_buffer = {NULL, 0};

/* Moves the writer's finished document into *buffer. False if memory ran out on the way. */
static bool give(json_writer_t *writer, tessera_buffer_t *buffer)
{
    uint8_t *data;
    size_t length;
    if (!json_writer_take(writer, &data, &length))
        return false;
    buffer->data = data;
    buffer->length = length;
    return true;
}

/* Fails the call with {"code", "message", "field"?}. If even that cannot be allocated, the host
 * still sees TESSERA_ERROR, with an empty result. */
static int32_t refuse(tessera_buffer_t *result, const char *code, const char *message, const char *field)
{
    json_writer_t error;
    json_writer_init(&error);
    json_begin_object(&error);
    json_member_text(&error, "code", code);
    json_member_text(&error, "message", message);
    if (field)
        json_member_text(&error, "field", field);
    json_end_object(&error);
    give(&error, result);
    return TESSERA_ERROR;
}

static int32_t out_of_memory(tessera_buffer_t *result)
{
    return refuse(result, "internal", "The plugin ran out of memory.", NULL);
}

/* Succeeds with the writer's document as the output. */
static int32_t respond(json_writer_t *output, tessera_buffer_t *result)
{
    return give(output, result) ? TESSERA_OK : out_of_memory(result);
}

/* ================================================================================================
 * Calling the host
 */

/* Calls a capability method with the params the writer holds (and empties).
 * TESSERA_OK: *answer is the result, parsed (NULL if the host sent none).
 * TESSERA_ERROR: *answer is the host's error object, or NULL when there is none to read (memory
 * ran out, or the host's bytes were not JSON).
 * The caller json_frees *answer either way. */
static int32_t call_host(notes_t *notes, const char *method, json_writer_t *params, json_value_t **answer)
{
    *answer = NULL;
    uint8_t *bytes;
    size_t length;
    if (!json_writer_take(params, &bytes, &length))
        return TESSERA_ERROR;

    tessera_buffer_t reply = empty_buffer;
    int32_t status = notes->host->call(notes->host_context, method, bytes, length, &reply);
    free(bytes);

    json_status_t read = JSON_OK;
    if (reply.data && reply.length > 0)
        read = json_parse(reply.data, reply.length, answer);
    if (reply.data)
        notes->host->free_buffer(&reply); /* the host's buffer goes back to the host */
    return status == TESSERA_OK && read == JSON_OK ? TESSERA_OK : TESSERA_ERROR;
}

/* Passes an error from the host on as this plugin's own: the same code and message. Its "field",
 * if any, named a field of the plugin's params, not of the caller's input, so it stays behind. */
static int32_t pass_on(const json_value_t *error, tessera_buffer_t *result)
{
    size_t code_length, message_length;
    const char *code = json_string(json_get(error, "code"), &code_length);
    const char *message = json_string(json_get(error, "message"), &message_length);
    if (!code || !message)
        return refuse(result, "internal", "A call to the host failed without saying why.", NULL);

    json_writer_t copy;
    json_writer_init(&copy);
    json_begin_object(&copy);
    json_member_string(&copy, "code", code, code_length);
    json_member_string(&copy, "message", message, message_length);
    json_end_object(&copy);
    give(&copy, result);
    return TESSERA_ERROR;
}

/* Calls a method for what it does, not for what it answers (storage.write, clock.schedule). */
static int32_t call_for_effect(notes_t *notes, const char *method, json_writer_t *params, tessera_buffer_t *result)
{
    json_value_t *answer;
    int32_t status = call_host(notes, method, params, &answer);
    if (status != TESSERA_OK)
        pass_on(answer, result);
    json_free(answer);
    return status;
}

/* The host's time now, in wire seconds. */
static int32_t clock_now(notes_t *notes, double *now, tessera_buffer_t *result)
{
    json_writer_t params;
    json_writer_init(&params);
    json_write_null(&params);

    json_value_t *answer;
    int32_t status = call_host(notes, "clock.now", &params, &answer);
    if (status != TESSERA_OK)
        pass_on(answer, result);
    else if (!json_number(answer, now))
        status = refuse(result, "internal", "The host's clock answered something other than a time.", NULL);
    json_free(answer);
    return status;
}

/* storage.write's params for a batch of one change, up to its values:
 *   {"changes": [{"op": op, "table": table, "id": id, "values": {
 * the caller writes the columns, and end_change closes the four levels. The row's key, `id`, is
 * given beside the values, not among them. */
static void begin_change(json_writer_t *params, const char *op, const char *table, const char *id, size_t id_length)
{
    json_begin_object(params);
    json_member_array(params, "changes");
    json_begin_object(params);
    json_member_text(params, "op", op);
    json_member_text(params, "table", table);
    json_member_string(params, "id", id, id_length);
    json_member_object(params, "values");
}

static void end_change(json_writer_t *params)
{
    json_end_object(params); /* values */
    json_end_object(params); /* the change */
    json_end_array(params);  /* changes */
    json_end_object(params);
}

/* storage.query's params: {"sql": sql, "parameters": [one text or integer]}. */
static void query_params(json_writer_t *params, const char *sql)
{
    json_begin_object(params);
    json_member_text(params, "sql", sql);
    json_member_array(params, "parameters");
}

static void end_query_params(json_writer_t *params)
{
    json_end_array(params);
    json_end_object(params);
}

/* Whether rows are as storage.query promises: an array of {"c": [names], "v": [values]}, with as
 * many values as names and every name a string. */
static bool rows_well_formed(const json_value_t *rows)
{
    if (!rows || rows->kind != JSON_ARRAY)
        return false;
    for (size_t i = 0; i < json_count(rows); i++) {
        const json_value_t *names = json_get(json_item(rows, i), "c"), *values = json_get(json_item(rows, i), "v");
        if (!names || names->kind != JSON_ARRAY || !values || values->kind != JSON_ARRAY ||
            json_count(names) != json_count(values))
            return false;
        for (size_t j = 0; j < json_count(names); j++) {
            size_t length;
            if (!json_string(json_item(names, j), &length))
                return false;
        }
    }
    return true;
}

static int32_t unreadable_rows(tessera_buffer_t *result)
{
    return refuse(result, "internal", "The database answered rows this plugin cannot read.", NULL);
}

/* Runs storage.query. TESSERA_OK: *rows is its answer, well formed, for the caller to json_free.
 * TESSERA_ERROR: the error is in *result. */
static int32_t query_rows(notes_t *notes, json_writer_t *params, json_value_t **rows, tessera_buffer_t *result)
{
    int32_t status = call_host(notes, "storage.query", params, rows);
    if (status != TESSERA_OK)
        pass_on(*rows, result);
    else if (!rows_well_formed(*rows))
        status = unreadable_rows(result);
    if (status != TESSERA_OK) {
        json_free(*rows);
        *rows = NULL;
    }
    return status;
}

/* One column of a row storage.query answered ({"c": [names], "v": [values]}), or NULL. */
static const json_value_t *column(const json_value_t *row, const char *name)
{
    const json_value_t *names = json_get(row, "c"), *values = json_get(row, "v");
    size_t name_length = strlen(name);
    for (size_t i = 0; i < json_count(names); i++) {
        size_t length;
        const char *candidate = json_string(json_item(names, i), &length);
        if (candidate && length == name_length && memcmp(candidate, name, length) == 0)
            return json_item(values, i);
    }
    return NULL;
}

/* Writes `key` with a row's text column as its value (or null, if `nullable` and the column is
 * NULL). False if the row has no such column or it holds something else. */
static bool copy_column(json_writer_t *output, const char *key, const json_value_t *row, const char *name,
                        bool nullable)
{
    const json_value_t *value = column(row, name);
    size_t length;
    const char *text = json_string(value, &length);
    json_key(output, key);
    if (text)
        json_write_string(output, text, length);
    else if (nullable && value && value->kind == JSON_NULL)
        json_write_null(output);
    else
        return false;
    return true;
}

/* ================================================================================================
 * The operations
 *
 * Each takes the call's "input" (the host has checked it against the manifest's schema, but the
 * plugin checks what it relies on all the same) and answers the output, or refuses.
 */

/* The input's `field` as text without surrounding whitespace; NULL if it is not a string. */
static const char *trimmed_input(const json_value_t *input, const char *field, size_t *length)
{
    size_t raw_length;
    const char *raw = json_string(json_get(input, field), &raw_length);
    return raw ? utf8_trim(raw, raw_length, length) : NULL;
}

/* A new id: the prefix, the time in whole milliseconds, and the instance's counter, as in
 * "note-796809600000-1". The counter keeps apart ids made in the same millisecond. */
static bool make_id(notes_t *notes, const char *prefix, double now, char id[ID_SIZE])
{
    double milliseconds = now * 1000.0;
    if (!(milliseconds > -9.2e18 && milliseconds < 9.2e18)) /* within int64_t, and not NaN */
        return false;
    int64_t whole = (int64_t)milliseconds;
    if ((double)whole > milliseconds)
        whole -= 1; /* rounded down, also before 2001 */
    snprintf(id, ID_SIZE, "%s%lld-%lld", prefix, (long long)whole, (long long)notes->next_id);
    notes->next_id += 1;
    return true;
}

static int32_t clock_out_of_range(tessera_buffer_t *result)
{
    return refuse(result, "internal", "The host's clock gave a time outside the years 1 to 9999.", NULL);
}

/* Writes {"id": id, "at": at}, the output of add-note and remind. */
static int32_t answer_id_and_time(const char *id, const char *at, tessera_buffer_t *result)
{
    json_writer_t output;
    json_writer_init(&output);
    json_begin_object(&output);
    json_member_text(&output, "id", id);
    json_member_text(&output, "at", at);
    json_end_object(&output);
    return respond(&output, result);
}

/* "add-note" {text} → {id, at} */
static int32_t add_note(notes_t *notes, const json_value_t *input, tessera_buffer_t *result)
{
    size_t length;
    const char *text = trimmed_input(input, "text", &length);
    if (!text || length == 0)
        return refuse(result, "invalid_input", "A note needs some text.", "text");
    if (utf8_count(text, length) > NOTE_MAX_CHARACTERS)
        return refuse(result, "invalid_input", "A note can be at most 1000 characters long.", "text");

    double now;
    char at[ISO_TIME_LENGTH + 1], id[ID_SIZE];
    if (clock_now(notes, &now, result) != TESSERA_OK)
        return TESSERA_ERROR;
    if (!iso_time_format(now, at) || !make_id(notes, "note-", now, id))
        return clock_out_of_range(result);

    json_writer_t write;
    json_writer_init(&write);
    begin_change(&write, "put", "notes", id, strlen(id));
    json_member_string(&write, "text", text, length);
    json_member_text(&write, "created_at", at);
    end_change(&write);
    if (call_for_effect(notes, "storage.write", &write, result) != TESSERA_OK)
        return TESSERA_ERROR;

    return answer_id_and_time(id, at, result);
}

/* "list-notes" {limit?} → {notes: [{id, text, at}]}, newest first */
static int32_t list_notes(notes_t *notes, const json_value_t *input, tessera_buffer_t *result)
{
    int64_t limit = LIST_DEFAULT_LIMIT;
    const json_value_t *given = json_get(input, "limit");
    if (given && (!json_integer(given, &limit) || limit < 1 || limit > LIST_MAX_LIMIT))
        return refuse(result, "invalid_input", "Ask for between 1 and 500 notes.", "limit");

    json_writer_t query;
    json_writer_init(&query);
    query_params(&query, LIST_NOTES_SQL);
    json_write_integer(&query, limit);
    end_query_params(&query);
    json_value_t *rows;
    if (query_rows(notes, &query, &rows, result) != TESSERA_OK)
        return TESSERA_ERROR;

    json_writer_t output;
    json_writer_init(&output);
    json_begin_object(&output);
    json_member_array(&output, "notes");
    bool readable = true;
    for (size_t i = 0; readable && i < json_count(rows); i++) {
        const json_value_t *row = json_item(rows, i);
        json_begin_object(&output);
        readable = copy_column(&output, "id", row, "id", false) &&
                   copy_column(&output, "text", row, "text", false) &&
                   copy_column(&output, "at", row, "created_at", false);
        json_end_object(&output);
    }
    json_end_array(&output);
    json_end_object(&output);
    json_free(rows);
    if (!readable) {
        json_writer_discard(&output);
        return unreadable_rows(result);
    }
    return respond(&output, result);
}

/* "remind" {text, in} → {id, at}: at is when it is due */
static int32_t remind(notes_t *notes, const json_value_t *input, tessera_buffer_t *result)
{
    size_t length, wait_length;
    const char *text = trimmed_input(input, "text", &length);
    if (!text || length == 0)
        return refuse(result, "invalid_input", "A reminder needs some text.", "text");
    if (utf8_count(text, length) > REMINDER_MAX_CHARACTERS)
        return refuse(result, "invalid_input", "A reminder can be at most 200 characters long.", "text");
    const char *wait = json_string(json_get(input, "in"), &wait_length);
    int64_t seconds;
    if (!wait || !duration_parse(wait, wait_length, REMINDER_MAX_WAIT, &seconds) || seconds == 0)
        return refuse(result, "invalid_input", "Say how long to wait, like 30m, 2h or 1d.", "in");

    double now;
    char due_at[ISO_TIME_LENGTH + 1], id[ID_SIZE];
    if (clock_now(notes, &now, result) != TESSERA_OK)
        return TESSERA_ERROR;
    double due = now + (double)seconds;
    if (!iso_time_format(due, due_at) || !make_id(notes, "reminder-", now, id))
        return clock_out_of_range(result);

    json_writer_t write;
    json_writer_init(&write);
    begin_change(&write, "put", "reminders", id, strlen(id));
    json_member_string(&write, "text", text, length);
    json_member_text(&write, "due_at", due_at);
    json_member_null(&write, "fired_at");
    end_change(&write);
    if (call_for_effect(notes, "storage.write", &write, result) != TESSERA_OK)
        return TESSERA_ERROR;

    /* The timer is durable: it fires (into notes_receive) even if the host restarted meanwhile. */
    json_writer_t timer;
    json_writer_init(&timer);
    json_begin_object(&timer);
    json_member_text(&timer, "key", id);
    json_member_text(&timer, "name", "reminder");
    json_member_real(&timer, "fireAt", due);
    json_member_object(&timer, "payload");
    json_member_text(&timer, "id", id);
    json_end_object(&timer);
    json_end_object(&timer);
    if (call_for_effect(notes, "clock.schedule", &timer, result) != TESSERA_OK)
        return TESSERA_ERROR;

    return answer_id_and_time(id, due_at, result);
}

/* "list-reminders" {} → {reminders: [{id, text, due, fired}]}, soonest first; fired is null until then */
static int32_t list_reminders(notes_t *notes, const json_value_t *input, tessera_buffer_t *result)
{
    (void)input;
    json_writer_t query;
    json_writer_init(&query);
    query_params(&query, LIST_REMINDERS_SQL);
    end_query_params(&query);
    json_value_t *rows;
    if (query_rows(notes, &query, &rows, result) != TESSERA_OK)
        return TESSERA_ERROR;

    json_writer_t output;
    json_writer_init(&output);
    json_begin_object(&output);
    json_member_array(&output, "reminders");
    bool readable = true;
    for (size_t i = 0; readable && i < json_count(rows); i++) {
        const json_value_t *row = json_item(rows, i);
        json_begin_object(&output);
        readable = copy_column(&output, "id", row, "id", false) &&
                   copy_column(&output, "text", row, "text", false) &&
                   copy_column(&output, "due", row, "due_at", false) &&
                   copy_column(&output, "fired", row, "fired_at", true);
        json_end_object(&output);
    }
    json_end_array(&output);
    json_end_object(&output);
    json_free(rows);
    if (!readable) {
        json_writer_discard(&output);
        return unreadable_rows(result);
    }
    return respond(&output, result);
}

/* "stats" {} → {handled, since}: handled counts this call too */
static int32_t stats(notes_t *notes, const json_value_t *input, tessera_buffer_t *result)
{
    (void)input;
    json_writer_t output;
    json_writer_init(&output);
    json_begin_object(&output);
    json_member_integer(&output, "handled", notes->handled);
    if (notes->since)
        json_member_text(&output, "since", notes->since);
    else
        json_member_null(&output, "since");
    json_end_object(&output);
    return respond(&output, result);
}

/* "echo" {...} → the input as it came: does nothing, so that a benchmark measures the call path
 * alone (the Swift example has the same operation). */
static int32_t echo(notes_t *notes, const json_value_t *input, tessera_buffer_t *result)
{
    (void)notes;
    json_writer_t output;
    json_writer_init(&output);
    if (input)
        json_write_value(&output, input);
    else
        json_write_null(&output);
    return respond(&output, result);
}

typedef int32_t (*operation_fn)(notes_t *notes, const json_value_t *input, tessera_buffer_t *result);

/* The operations, by name: what handle dispatches on and what start tells the host to route. */
static const struct {
    const char *name;
    operation_fn run;
} operations[] = {
    {"add-note", add_note},
    {"list-notes", list_notes},
    {"remind", remind},
    {"list-reminders", list_reminders},
    {"stats", stats},
    {"echo", echo},
};

/* ================================================================================================
 * The timer
 */

/* Marks the reminder's row fired, at the firing's time. */
static int32_t mark_fired(notes_t *notes, const char *id, size_t id_length, const char *fired_at,
                          tessera_buffer_t *result)
{
    json_writer_t write;
    json_writer_init(&write);
    begin_change(&write, "patch", "reminders", id, id_length);
    json_member_text(&write, "fired_at", fired_at);
    end_change(&write);
    return call_for_effect(notes, "storage.write", &write, result);
}

/* Tells the user, now. Notifications are optional for this plugin: without the grant the reminder
 * is still marked fired, and the list shows it, but nobody is told. */
static int32_t announce(notes_t *notes, const char *id, size_t id_length, const char *text, size_t text_length,
                        double fired_at, tessera_buffer_t *result)
{
    json_writer_t notification;
    json_writer_init(&notification);
    json_begin_object(&notification);
    json_member_string(&notification, "key", id, id_length);
    json_member_text(&notification, "title", "Reminder");
    json_member_string(&notification, "body", text, text_length);
    json_member_object(&notification, "payload");
    json_member_string(&notification, "id", id, id_length);
    json_end_object(&notification);
    json_member_text(&notification, "recipient", "user");
    json_member_object(&notification, "schedule");
    json_member_real(&notification, "at", fired_at);
    json_end_object(&notification);
    json_end_object(&notification);

    json_value_t *reply;
    int32_t status = call_host(notes, "notifications.schedule", &notification, &reply);
    if (status != TESSERA_OK) {
        size_t code_length;
        const char *code = json_string(json_get(reply, "code"), &code_length);
        /* The host refuses a capability the operator did not grant with "not_granted". */
        if (code && code_length == strlen("not_granted") && memcmp(code, "not_granted", code_length) == 0) {
            char *line = join3("Reminder ", id, id_length, " fired, but notifications are not granted: nobody is told.");
            log_line(notes, TESSERA_LOG_WARNING, line ? line : "A reminder fired, but notifications are not granted.");
            free(line);
            status = TESSERA_OK;
        } else {
            pass_on(reply, result);
        }
    }
    json_free(reply);
    return status;
}

/* A reminder is due: {"key", "name": "reminder", "dueAt", "firedAt", "payload": {"id"}}. */
static int32_t reminder_fired(notes_t *notes, const json_value_t *firing, tessera_buffer_t *result)
{
    size_t id_length;
    const char *id = json_string(json_get(json_get(firing, "payload"), "id"), &id_length);
    double fired_at;
    char fired_iso[ISO_TIME_LENGTH + 1];
    if (!id || !json_number(json_get(firing, "firedAt"), &fired_at) || !iso_time_format(fired_at, fired_iso))
        return refuse(result, "invalid_input", "A reminder's timer must carry the reminder's id and when it fired.",
                      NULL);

    json_writer_t query;
    json_writer_init(&query);
    query_params(&query, REMINDER_TEXT_SQL);
    json_write_string(&query, id, id_length);
    end_query_params(&query);
    json_value_t *rows;
    if (query_rows(notes, &query, &rows, result) != TESSERA_OK)
        return TESSERA_ERROR;

    int32_t status = TESSERA_OK;
    if (json_count(rows) > 0) { /* with no row, the reminder is gone: nothing to do */
        size_t text_length;
        const char *text = json_string(column(json_item(rows, 0), "text"), &text_length);
        if (!text) {
            status = unreadable_rows(result);
        } else {
            status = mark_fired(notes, id, id_length, fired_iso, result);
            if (status == TESSERA_OK)
                status = announce(notes, id, id_length, text, text_length, fired_at, result);
        }
    }
    json_free(rows);
    return status;
}

/* ================================================================================================
 * The ABI functions (tessera_plugin_api_t)
 *
 * Each checks its pointers and starts from an empty result, so a careless host gets an error
 * rather than a crash.
 */

static void *notes_create(const tessera_host_api_t *host, void *host_context)
{
    /* A host table shorter than C ABI 1.0's lacks functions this plugin calls. */
    if (!host || host->size < offsetof(tessera_host_api_t, log) + sizeof host->log ||
        host->c_abi_major != TESSERA_C_ABI_MAJOR || !host->call || !host->free_buffer || !host->log)
        return NULL;
    notes_t *notes = calloc(1, sizeof *notes);
    if (!notes)
        return NULL;
    notes->host = host;
    notes->host_context = host_context;
    notes->next_id = 1;
    return notes;
}

static int32_t notes_start(void *instance, const uint8_t *config, size_t config_length, tessera_buffer_t *result)
{
    (void)config; /* this plugin has no settings */
    (void)config_length;
    if (!result)
        return TESSERA_ERROR;
    *result = empty_buffer;
    notes_t *notes = instance;
    if (!notes)
        return refuse(result, "internal", "There is no instance to start.", NULL);

    double now;
    if (clock_now(notes, &now, result) != TESSERA_OK)
        return TESSERA_ERROR;
    /* In a hot swap, import_state comes after start and puts the first start's time back. */
    if (!notes->since) {
        char at[ISO_TIME_LENGTH + 1];
        if (!iso_time_format(now, at))
            return clock_out_of_range(result);
        notes->since = copy_text(at, ISO_TIME_LENGTH);
        if (!notes->since)
            return out_of_memory(result);
    }
    log_line(notes, TESSERA_LOG_INFO, "notes started");

    /* What the host is to route here: the operations and the timer's name. */
    json_writer_t routes;
    json_writer_init(&routes);
    json_begin_object(&routes);
    json_member_array(&routes, "operations");
    for (size_t i = 0; i < sizeof operations / sizeof operations[0]; i++)
        json_write_text(&routes, operations[i].name);
    json_end_array(&routes);
    json_member_array(&routes, "timers");
    json_write_text(&routes, "reminder");
    json_end_array(&routes);
    json_end_object(&routes);
    return respond(&routes, result);
}

static int32_t notes_handle(void *instance, const char *operation, const uint8_t *call, size_t call_length,
                            tessera_buffer_t *result)
{
    if (!result)
        return TESSERA_ERROR;
    *result = empty_buffer;
    notes_t *notes = instance;
    if (!notes)
        return refuse(result, "internal", "There is no instance to handle the call.", NULL);
    notes->handled += 1; /* every call counts, whether it is answered or refused */

    if (!operation)
        operation = "";
    operation_fn run = NULL;
    for (size_t i = 0; i < sizeof operations / sizeof operations[0] && !run; i++)
        if (strcmp(operations[i].name, operation) == 0)
            run = operations[i].run;
    if (!run) {
        char *message = join3("This plugin has no operation '", operation, strlen(operation), "'.");
        if (!message)
            return out_of_memory(result);
        refuse(result, "not_found", message, NULL);
        free(message);
        return TESSERA_ERROR;
    }

    /* {"input": {...}, "principal": {...}}: this plugin treats every principal alike. */
    json_value_t *parsed;
    json_status_t read = json_parse(call, call_length, &parsed);
    if (read == JSON_NO_MEMORY)
        return out_of_memory(result);
    if (read != JSON_OK)
        return refuse(result, "invalid_input", "The call is not JSON.", NULL);
    int32_t status = run(notes, json_get(parsed, "input"), result);
    json_free(parsed);
    return status;
}

static int32_t notes_receive(void *instance, const char *kind, const uint8_t *payload, size_t payload_length,
                             tessera_buffer_t *result)
{
    if (!result)
        return TESSERA_ERROR;
    *result = empty_buffer;
    notes_t *notes = instance;
    if (!notes)
        return refuse(result, "internal", "There is no instance to receive it.", NULL);
    if (!kind || strcmp(kind, "timer") != 0)
        return TESSERA_OK; /* this plugin asked for timers only; anything else is ignored */

    json_value_t *firing;
    json_status_t read = json_parse(payload, payload_length, &firing);
    if (read == JSON_NO_MEMORY)
        return out_of_memory(result);
    if (read != JSON_OK)
        return refuse(result, "invalid_input", "The timer's firing is not JSON.", NULL);
    size_t name_length;
    const char *name = json_string(json_get(firing, "name"), &name_length);
    int32_t status = TESSERA_OK;
    if (name && name_length == strlen("reminder") && memcmp(name, "reminder", name_length) == 0)
        status = reminder_fired(notes, firing, result);
    json_free(firing);
    return status;
}

static int32_t notes_export_state(void *instance, uint32_t *schema, tessera_buffer_t *state)
{
    if (!schema || !state)
        return TESSERA_ERROR;
    *state = empty_buffer;
    notes_t *notes = instance;
    if (!notes)
        return TESSERA_ERROR;

    json_writer_t writer;
    json_writer_init(&writer);
    json_begin_object(&writer);
    json_member_integer(&writer, "handled", notes->handled);
    if (notes->since)
        json_member_text(&writer, "since", notes->since);
    else
        json_member_null(&writer, "since");
    json_member_integer(&writer, "next", notes->next_id);
    json_end_object(&writer);
    *schema = STATE_SCHEMA;
    return give(&writer, state) ? TESSERA_OK : TESSERA_ERROR;
}

static int32_t notes_import_state(void *instance, uint32_t schema, const uint8_t *state, size_t state_length,
                                  tessera_buffer_t *result)
{
    if (!result)
        return TESSERA_ERROR;
    *result = empty_buffer;
    notes_t *notes = instance;
    if (!notes)
        return refuse(result, "internal", "There is no instance to take the state over.", NULL);
    if (schema != STATE_SCHEMA) {
        char message[80];
        snprintf(message, sizeof message, "This build cannot read the state of schema %u.", (unsigned)schema);
        return refuse(result, "invalid_input", message, NULL);
    }
    if (state_length == 0)
        return TESSERA_OK; /* nothing was carried over */

    json_value_t *parsed;
    json_status_t read = json_parse(state, state_length, &parsed);
    if (read == JSON_NO_MEMORY)
        return out_of_memory(result);
    /* Unreadable text parses to NULL, and every read of NULL fails: one check covers both. */
    int64_t handled = 0, next_id = 0;
    size_t since_length = 0;
    const json_value_t *since_value = json_get(parsed, "since");
    const char *since = json_string(since_value, &since_length);
    bool never_started = since_value && since_value->kind == JSON_NULL;
    bool readable = json_integer(json_get(parsed, "handled"), &handled) && handled >= 0 &&
                    json_integer(json_get(parsed, "next"), &next_id) && next_id >= 0 && (since || never_started);
    char *since_copy = readable && since ? copy_text(since, since_length) : NULL;
    json_free(parsed);
    if (!readable)
        return refuse(result, "invalid_input", "The state of schema 1 could not be read.", NULL);
    if (since && !since_copy)
        return out_of_memory(result);

    /* Only now, with everything read, is anything replaced: a refused import changes nothing. */
    free(notes->since);
    notes->since = since_copy;
    notes->handled = handled;
    notes->next_id = next_id;
    return TESSERA_OK;
}

static void notes_stop(void *instance)
{
    (void)instance; /* nothing runs on its own: the host's timers and calls are all there is */
}

static void notes_destroy(void *instance)
{
    notes_t *notes = instance;
    if (notes) {
        free(notes->since);
        free(notes);
    }
}

static void notes_free_buffer(tessera_buffer_t *buffer)
{
    if (buffer) {
        free(buffer->data);
        *buffer = empty_buffer;
    }
}

/* The plugin's table: static, so it lives as long as the library, as the ABI asks. */
static const tessera_plugin_api_t notes_api = {
    .size = sizeof(tessera_plugin_api_t),
    .magic = TESSERA_C_PLUGIN_MAGIC,
    .c_abi_major = TESSERA_C_ABI_MAJOR,
    .c_abi_minor = TESSERA_C_ABI_MINOR,
    .plugin_id = PLUGIN_ID,
    .migrations = migrations,
    .create = notes_create,
    .start = notes_start,
    .handle = notes_handle,
    .receive = notes_receive,
    .export_state = notes_export_state,
    .import_state = notes_import_state,
    .stop = notes_stop,
    .destroy = notes_destroy,
    .free_buffer = notes_free_buffer,
};

const tessera_plugin_api_t *tessera_c_plugin_entry(uint32_t host_c_abi_major, uint32_t host_c_abi_minor)
{
    /* Another major is another ABI. The minor is the host's to check: the table carries ours. */
    (void)host_c_abi_minor;
    return host_c_abi_major == TESSERA_C_ABI_MAJOR ? &notes_api : NULL;
}
