/*
 * tessera_plugin.h — the stable C ABI for Tessera plugins written in any language (C, Rust, Zig…).
 *
 * A Swift plugin links the host's SDK and must be built by the host's own compiler. A plugin that
 * speaks this ABI links nothing of Tessera's: it exports one entry symbol, receives a table of
 * host functions, and hands back a table of its own. Everything between the two is JSON text — the
 * capability protocol of docs/capability-protocol.md, the same methods a process-tier plugin's
 * proxies call — so a plugin built today keeps loading after the host's Swift changes.
 * docs/c-abi.md is the guide, with a complete plugin in C and one in Rust.
 *
 * Rules, as in tessera_abi.h (and SQLite's, GStreamer's): every struct starts with its size, fields
 * are only ever appended, and a reader never reads past the size the writer declared.
 *
 * Versions: TESSERA_C_ABI_MAJOR must equal the host's; a plugin's minor must be no newer than the
 * host's. The capability protocol has its own version (tessera_host_api_t.protocol_version).
 *
 * Ownership, for every buffer that crosses:
 *  - What a caller passes in (`const char *`, `const uint8_t *` with a length) is borrowed for that
 *    call only: copy it to keep it.
 *  - A `tessera_buffer_t *` out-parameter is filled by the callee with memory the callee allocated;
 *    the caller gives it back with the callee's `free_buffer` — the host's for what the host
 *    filled (`tessera_host_api_t.free_buffer`), the plugin's for what the plugin filled
 *    (`tessera_plugin_api_t.free_buffer`). An empty buffer is {NULL, 0} and needs no freeing.
 *  - Strings the plugin's table points to (`plugin_id`, `migrations`) live as long as the library.
 *
 * Threads: the host calls one instance from one thread of its own at a time, never from two at
 * once, and never from a thread that must not block: a plugin may block in `host->call` as long as
 * the host takes to answer. A plugin may call `host->call` from a thread of its own too, while one
 * of its functions is running.
 */
#ifndef TESSERA_PLUGIN_H
#define TESSERA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include "tessera_abi.h"

/* The C ABI version this header describes. History: 1.0 the first. */
#define TESSERA_C_ABI_MAJOR 1u
#define TESSERA_C_ABI_MINOR 0u

/* The one symbol a C-ABI plugin exports. */
#define TESSERA_C_ENTRY_SYMBOL "tessera_c_plugin_entry"
/* 'TSSC' little-endian: marks a plugin table. */
#define TESSERA_C_PLUGIN_MAGIC 0x43535354u

/* What every function that can fail returns. On TESSERA_ERROR the result buffer holds a JSON
 * object {"code": "...", "message": "...", "field": "..."?}: a code of docs/http.md's error table
 * ("invalid_input", "not_found", "forbidden", …), a sentence for a person, and the input field it
 * is about, if any. */
#define TESSERA_OK 0
#define TESSERA_ERROR 1

/* Log levels of tessera_host_api_t.log. */
#define TESSERA_LOG_DEBUG 0
#define TESSERA_LOG_INFO 1
#define TESSERA_LOG_WARNING 2
#define TESSERA_LOG_ERROR 3

/* Bytes owned by whoever filled them; given back with that side's free_buffer. */
typedef struct tessera_buffer {
    uint8_t *data;
    size_t length;
} tessera_buffer_t;

/* The host's functions, handed to the plugin's `create`. `host_context` is the instance's own
 * handle on the host: pass it back on every call. */
typedef struct tessera_host_api {
    uint32_t size;                           /* sizeof(tessera_host_api_t) of the host */
    uint32_t c_abi_major;
    uint32_t c_abi_minor;
    uint32_t protocol_version;               /* the capability protocol's version the host speaks */
    const char *host_version;                /* NUL-terminated SemVer of the host */

    /* Calls a capability method (docs/capability-protocol.md): `method` its name, `params` its JSON
     * parameters (`null` for none). TESSERA_OK with `*result` the JSON result, or TESSERA_ERROR
     * with `*result` the error: a capability the operator did not grant is "not_granted", as for
     * any plugin, and a method the host does not answer "forbidden". Free `*result` with `free_buffer`. */
    int32_t (*call)(void *host_context, const char *method, const uint8_t *params, size_t params_length,
                    tessera_buffer_t *result);
    /* Gives back a buffer the host filled. */
    void (*free_buffer)(tessera_buffer_t *buffer);
    /* Writes a line to the host's log under the plugin's id. Never fails. */
    void (*log)(void *host_context, int32_t level, const uint8_t *message, size_t length);

    void *reserved[8];
} tessera_host_api_t;

/* The plugin's functions, returned by the entry symbol. Every function pointer is required. */
typedef struct tessera_plugin_api {
    uint32_t size;                           /* sizeof(tessera_plugin_api_t) of the plugin */
    uint32_t magic;                          /* TESSERA_C_PLUGIN_MAGIC */
    uint32_t c_abi_major;                    /* TESSERA_C_ABI_MAJOR when the plugin was built */
    uint32_t c_abi_minor;
    const char *plugin_id;                   /* NUL-terminated; must equal the manifest's id */
    /* The database's schema steps, applied by the host before `start` when storage is granted:
     * NUL-terminated JSON, [{"version": 1, "sql": "CREATE TABLE …"}, …], or NULL for none. */
    const char *migrations;

    /* Makes an instance; NULL if it cannot. `host` and `host_context` stay valid until `destroy`. */
    void *(*create)(const tessera_host_api_t *host, void *host_context);
    /* Starts the instance with the deployment's configuration (a JSON object). On TESSERA_OK,
     * `*result` says what to route to it: {"operations": [names], "timers": [names],
     * "events": [qualified names], "location": true|false} (each may be left out). */
    int32_t (*start)(void *instance, const uint8_t *config, size_t config_length, tessera_buffer_t *result);
    /* Handles a call of an operation the manifest declares. `call` is
     * {"input": {...}, "principal": {"id": "...", "role": "user"|"admin"|"system"}}, the input
     * already checked against the manifest's schema. TESSERA_OK with `*result` the output. */
    int32_t (*handle)(void *instance, const char *operation, const uint8_t *call, size_t call_length,
                      tessera_buffer_t *result);
    /* Receives what the host delivers, by `kind`: "timer" {"key", "name", "dueAt", "firedAt",
     * "payload"}, "event" {"qualifiedName", "event": {"publisher", "name", "payload", "sequence",
     * "publishedAt"}}, "location" (a fix). Times are seconds since 2001-01-01 UTC. A TESSERA_ERROR
     * is logged, and a timer's firing is not repeated. */
    int32_t (*receive)(void *instance, const char *kind, const uint8_t *payload, size_t payload_length,
                       tessera_buffer_t *result);
    /* Hands over the in-memory state when a new build replaces this one while the host runs (hot
     * swap); the host has stopped calling the instance. TESSERA_OK with `*state` empty means there
     * is nothing to carry over; `*schema` says how the bytes are laid out. On TESSERA_ERROR,
     * `*state` holds the error, and the swap is rolled back. */
    int32_t (*export_state)(void *instance, uint32_t *schema, tessera_buffer_t *state);
    /* Takes over the state the previous build exported, before any call reaches this instance.
     * TESSERA_ERROR rolls the swap back: the previous build keeps serving. */
    int32_t (*import_state)(void *instance, uint32_t schema, const uint8_t *state, size_t state_length,
                            tessera_buffer_t *result);
    /* Stops the instance; the host makes no call into it afterwards but `destroy`. */
    void (*stop)(void *instance);
    /* Frees the instance. */
    void (*destroy)(void *instance);
    /* Gives back a buffer the plugin filled. */
    void (*free_buffer)(tessera_buffer_t *buffer);

    void *reserved[8];
} tessera_plugin_api_t;

/* The signature of `tessera_c_plugin_entry`. The host calls it once per library, after gate 2; the
 * table must live as long as the library. */
typedef const tessera_plugin_api_t *(*tessera_c_entry_fn)(uint32_t host_c_abi_major, uint32_t host_c_abi_minor);

/* The stamp of a C-ABI plugin, read by the host from the file before loading it (gate 1). Write
 * TESSERA_C_PLUGIN_STAMP once in one source file of the plugin. It names no compiler (the toolchain
 * is empty) and carries the C ABI version in reserved[0] and reserved[1]; the SDK ABI fields are 0.
 * In another language, put the same 152 bytes in a section named "tessera_stamp", kept by the
 * linker (Plugins/RustNotes/src/abi.rs). Write it without a semicolon after. */
#define TESSERA_C_PLUGIN_STAMP                                                                     \
    __attribute__((used, retain, section(TESSERA_STAMP_SECTION), visibility("hidden")))            \
    const tessera_stamp_t tessera_c_plugin_stamp_record = {                                        \
        TESSERA_STAMP_MAGIC, sizeof(tessera_stamp_t), 0u, 0u, "",                                  \
        {TESSERA_C_ABI_MAJOR, TESSERA_C_ABI_MINOR, 0u, 0u}};

#endif /* TESSERA_PLUGIN_H */
