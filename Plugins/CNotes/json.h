/*
 * json.h — a small JSON reader and writer: every value that crosses Tessera's C ABI is JSON text.
 *
 * Reading: json_parse turns UTF-8 text into a tree of json_value_t (RFC 8259: objects, arrays,
 * strings with every escape including surrogate pairs, numbers, true, false, null). It refuses
 * what is not JSON rather than guessing: invalid UTF-8, a lone surrogate, a raw control character
 * in a string, text after the value.
 *
 * Writing: json_writer_t appends values to a growing buffer and puts in the commas itself. When
 * memory runs out it remembers so and skips every later write, so a caller builds a whole document
 * without checking each step and checks once, at json_writer_take.
 */
#ifndef TESSERA_C_NOTES_JSON_H
#define TESSERA_C_NOTES_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Internal to the plugin library: only the entry symbol is exported, however it is compiled. */
#pragma GCC visibility push(hidden)

typedef enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind_t;

typedef struct json_value json_value_t;

typedef struct json_member {
    char *key;                  /* UTF-8, NUL-terminated (a key may also hold "\u0000": see key_length) */
    size_t key_length;
    json_value_t *value;
} json_member_t;

struct json_value {
    json_kind_t kind;
    union {
        bool boolean;
        struct {
            double real;        /* every number, as a double */
            bool is_integer;    /* written without fraction or exponent, and fits in int64_t */
            int64_t integer;    /* exact when is_integer */
        } number;
        struct {
            char *bytes;        /* UTF-8, NUL-terminated, but may hold NUL bytes: use length */
            size_t length;
        } string;
        struct {
            json_value_t **items;
            size_t count, capacity;
        } array;
        struct {
            json_member_t *members;
            size_t count, capacity;
        } object;
    };
};

typedef enum json_status { JSON_OK, JSON_MALFORMED, JSON_NO_MEMORY } json_status_t;

/* Parses `length` bytes of JSON text into *out (freed with json_free). On failure *out is NULL. */
json_status_t json_parse(const uint8_t *text, size_t length, json_value_t **out);
void json_free(json_value_t *value);

/* Reading a tree. Each accepts NULL and a value of the wrong kind, and then answers NULL/false,
 * so a chain like json_string(json_get(input, "text"), &n) needs one check at the end. */
const json_value_t *json_get(const json_value_t *object, const char *key);      /* the last of that key */
const char *json_string(const json_value_t *value, size_t *length);
bool json_integer(const json_value_t *value, int64_t *out);                     /* integers only */
bool json_number(const json_value_t *value, double *out);                       /* any number */
size_t json_count(const json_value_t *array);                                   /* 0 if not an array */
const json_value_t *json_item(const json_value_t *array, size_t index);

/* Writing. Keys go in objects, each followed by exactly one value. */
typedef struct json_writer {
    uint8_t *data;
    size_t length, capacity;
    bool failed;                /* memory ran out, or the document was misbuilt: later writes are skipped */
    unsigned depth;             /* open objects and arrays, at most 64 */
    uint64_t has_items;         /* bit d-1: the container at depth d holds something already (comma next) */
    bool after_key;             /* a key was written: the next value needs no comma */
} json_writer_t;

void json_writer_init(json_writer_t *writer);
void json_begin_object(json_writer_t *writer);
void json_end_object(json_writer_t *writer);
void json_begin_array(json_writer_t *writer);
void json_end_array(json_writer_t *writer);
void json_key(json_writer_t *writer, const char *key);
void json_write_string(json_writer_t *writer, const char *bytes, size_t length);
void json_write_text(json_writer_t *writer, const char *text);                  /* a NUL-terminated string */
void json_write_integer(json_writer_t *writer, int64_t value);
void json_write_real(json_writer_t *writer, double value);
void json_write_bool(json_writer_t *writer, bool value);
void json_write_null(json_writer_t *writer);
void json_write_value(json_writer_t *writer, const json_value_t *value);       /* a parsed value, again */

/* A member of an object, key and value in one call, so that code building a document reads like
 * the document: json_member_text(w, "title", "Reminder") writes "title":"Reminder". The _object
 * and _array forms open the value; close it with json_end_object or json_end_array. */
void json_member_string(json_writer_t *writer, const char *key, const char *bytes, size_t length);
void json_member_text(json_writer_t *writer, const char *key, const char *text);
void json_member_integer(json_writer_t *writer, const char *key, int64_t value);
void json_member_real(json_writer_t *writer, const char *key, double value);
void json_member_null(json_writer_t *writer, const char *key);
void json_member_object(json_writer_t *writer, const char *key);
void json_member_array(json_writer_t *writer, const char *key);

/* Hands over the finished document (malloc'd; the receiver frees it). False, with the buffer
 * freed, if memory ran out or the document is unfinished. */
bool json_writer_take(json_writer_t *writer, uint8_t **data, size_t *length);
/* Drops a document that will not be used. */
void json_writer_discard(json_writer_t *writer);

#pragma GCC visibility pop

#endif /* TESSERA_C_NOTES_JSON_H */
