/*
 * json.c — the JSON reader and writer of json.h.
 */
#include "json.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* Nesting deeper than this is refused: the reader recurses, and the host's values are shallow. */
enum { JSON_MAX_DEPTH = 128 };

/* ------------------------------------------------------------------------------------------------
 * Numbers and the locale
 *
 * strtod and snprintf follow LC_NUMERIC, which the host process may have set to a locale whose
 * decimal point is a comma; JSON's is always '.'. So numbers are translated on the way in and out.
 */

static const char *locale_decimal_point(void)
{
    const char *point = localeconv()->decimal_point;
    return (point && *point) ? point : ".";
}

/* strtod of a JSON number's text (`length` bytes, already checked against JSON's grammar). */
static bool read_real(const char *text, size_t length, double *out)
{
    const char *point = locale_decimal_point();
    size_t point_length = strlen(point);
    char small[128];
    size_t needed = length + point_length; /* '.' may become `point`, plus the NUL */
    char *buffer = needed <= sizeof small ? small : malloc(needed);
    if (!buffer)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '.') {
            memcpy(buffer + n, point, point_length);
            n += point_length;
        } else {
            buffer[n++] = text[i];
        }
    }
    buffer[n] = '\0';
    *out = strtod(buffer, NULL); /* out of range: ±HUGE_VAL or 0, as JSON sets no limit */
    if (buffer != small)
        free(buffer);
    return true;
}

/* ------------------------------------------------------------------------------------------------
 * Reading
 */

typedef struct parser {
    const uint8_t *at, *end;
    unsigned depth;
    json_status_t status; /* the first failure */
} parser_t;

static void *fail(parser_t *p, json_status_t status)
{
    if (p->status == JSON_OK)
        p->status = status;
    return NULL;
}

static int peek(const parser_t *p)
{
    return p->at < p->end ? *p->at : -1;
}

static void skip_space(parser_t *p)
{
    while (p->at < p->end && (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r'))
        p->at++;
}

static json_value_t *new_value(parser_t *p, json_kind_t kind)
{
    json_value_t *value = calloc(1, sizeof *value);
    if (!value)
        return fail(p, JSON_NO_MEMORY);
    value->kind = kind;
    return value;
}

static json_value_t *parse_value(parser_t *p);

/* An array of `count` elements of `size` bytes with room for one more: `elements` itself, or a
 * copy twice as large. NULL if memory ran out (`elements` is then unchanged). Taking and returning
 * the pointer, rather than a void ** to it, keeps to C's aliasing rules. */
static void *grow(void *elements, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return elements;
    size_t grown = *capacity ? *capacity * 2 : 4;
    if (grown > SIZE_MAX / size)
        return NULL;
    void *moved = realloc(elements, grown * size);
    if (moved)
        *capacity = grown;
    return moved;
}

static int hex_digit(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The four hex digits of a \u escape at `at` (which must end before `end`), or -1. */
static int32_t read_hex4(const uint8_t *at, const uint8_t *end)
{
    if (end - at < 4)
        return -1;
    int32_t value = 0;
    for (int i = 0; i < 4; i++) {
        int digit = hex_digit(at[i]);
        if (digit < 0)
            return -1;
        value = value * 16 + digit;
    }
    return value;
}

/* Reads a string (p->at on its opening quote) into a malloc'd, NUL-terminated UTF-8 buffer. */
static bool parse_string(parser_t *p, char **out, size_t *out_length)
{
    const uint8_t *start = ++p->at, *close = start;
    while (close < p->end && *close != '"') {
        if (*close == '\\' && ++close == p->end)
            break;
        close++;
    }
    if (close >= p->end) {
        fail(p, JSON_MALFORMED); /* no closing quote */
        return false;
    }

    /* Decoding never lengthens: an escape is longer than the bytes it stands for. */
    uint8_t *bytes = malloc((size_t)(close - start) + 1);
    if (!bytes) {
        fail(p, JSON_NO_MEMORY);
        return false;
    }
    size_t n = 0;
    const uint8_t *at = start;
    while (at < close) {
        uint8_t c = *at;
        if (c < 0x20)
            goto malformed; /* control characters must be escaped */
        if (c != '\\') {
            uint32_t scalar;
            size_t length = utf8_decode(at, (size_t)(close - at), &scalar);
            if (length == 0)
                goto malformed; /* not UTF-8 */
            memcpy(bytes + n, at, length);
            n += length;
            at += length;
            continue;
        }
        at++; /* the backslash; the string ends with a quote, so an escape letter follows */
        switch (*at++) {
        case '"': bytes[n++] = '"'; break;
        case '\\': bytes[n++] = '\\'; break;
        case '/': bytes[n++] = '/'; break;
        case 'b': bytes[n++] = '\b'; break;
        case 'f': bytes[n++] = '\f'; break;
        case 'n': bytes[n++] = '\n'; break;
        case 'r': bytes[n++] = '\r'; break;
        case 't': bytes[n++] = '\t'; break;
        case 'u': {
            int32_t unit = read_hex4(at, close);
            if (unit < 0)
                goto malformed;
            at += 4;
            uint32_t scalar = (uint32_t)unit;
            if (unit >= 0xD800 && unit <= 0xDBFF) {
                /* A high surrogate: only with a low one after it does it name a character. */
                int32_t low = close - at >= 6 && at[0] == '\\' && at[1] == 'u' ? read_hex4(at + 2, close) : -1;
                if (low < 0xDC00 || low > 0xDFFF)
                    goto malformed;
                at += 6;
                scalar = 0x10000 + (((uint32_t)unit - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
            }
            size_t length = utf8_encode(scalar, bytes + n);
            if (length == 0)
                goto malformed; /* a lone low surrogate */
            n += length;
            break;
        }
        default:
            goto malformed;
        }
    }
    bytes[n] = '\0';
    p->at = close + 1;
    *out = (char *)bytes;
    *out_length = n;
    return true;

malformed:
    free(bytes);
    fail(p, JSON_MALFORMED);
    return false;
}

static json_value_t *parse_string_value(parser_t *p)
{
    json_value_t *value = new_value(p, JSON_STRING);
    if (value && !parse_string(p, &value->string.bytes, &value->string.length)) {
        free(value);
        return NULL;
    }
    return value;
}

static json_value_t *parse_number(parser_t *p)
{
    const uint8_t *start = p->at;
    bool negative = peek(p) == '-', integral = true;
    if (negative)
        p->at++;

    /* JSON's grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
    if (peek(p) == '0') {
        p->at++;
    } else if (peek(p) >= '1' && peek(p) <= '9') {
        while (peek(p) >= '0' && peek(p) <= '9')
            p->at++;
    } else {
        return fail(p, JSON_MALFORMED);
    }
    const uint8_t *digits_end = p->at;
    if (peek(p) == '.') {
        integral = false;
        p->at++;
        if (!(peek(p) >= '0' && peek(p) <= '9'))
            return fail(p, JSON_MALFORMED);
        while (peek(p) >= '0' && peek(p) <= '9')
            p->at++;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        integral = false;
        p->at++;
        if (peek(p) == '+' || peek(p) == '-')
            p->at++;
        if (!(peek(p) >= '0' && peek(p) <= '9'))
            return fail(p, JSON_MALFORMED);
        while (peek(p) >= '0' && peek(p) <= '9')
            p->at++;
    }

    json_value_t *value = new_value(p, JSON_NUMBER);
    if (!value)
        return NULL;

    /* An integer is read exactly, digit by digit, so that no id or count is rounded through a
     * double; one too large for int64_t is read as a real. */
    if (integral) {
        uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, magnitude = 0;
        bool fits = true;
        for (const uint8_t *d = start + negative; d < digits_end && fits; d++) {
            unsigned digit = (unsigned)(*d - '0');
            if (magnitude > (limit - digit) / 10)
                fits = false;
            else
                magnitude = magnitude * 10 + digit;
        }
        if (fits) {
            value->number.is_integer = true;
            /* -(magnitude - 1) - 1 rather than -magnitude: INT64_MIN has no positive twin. */
            value->number.integer = !negative ? (int64_t)magnitude
                                  : magnitude == 0 ? 0 : -(int64_t)(magnitude - 1) - 1;
            value->number.real = (double)value->number.integer;
            return value;
        }
    }
    if (!read_real((const char *)start, (size_t)(p->at - start), &value->number.real)) {
        free(value);
        return fail(p, JSON_NO_MEMORY);
    }
    return value;
}

static json_value_t *parse_literal(parser_t *p, const char *word, json_kind_t kind, bool boolean)
{
    size_t length = strlen(word);
    if ((size_t)(p->end - p->at) < length || memcmp(p->at, word, length) != 0)
        return fail(p, JSON_MALFORMED);
    p->at += length;
    json_value_t *value = new_value(p, kind);
    if (value)
        value->boolean = boolean;
    return value;
}

static json_value_t *parse_array(parser_t *p)
{
    json_value_t *array = new_value(p, JSON_ARRAY);
    if (!array)
        return NULL;
    p->at++; /* '[' */
    skip_space(p);
    if (peek(p) == ']') {
        p->at++;
        return array;
    }
    for (;;) {
        json_value_t *item = parse_value(p);
        if (!item)
            goto failed;
        json_value_t **items = grow(array->array.items, &array->array.capacity, array->array.count, sizeof *items);
        if (!items) {
            json_free(item);
            fail(p, JSON_NO_MEMORY);
            goto failed;
        }
        array->array.items = items;
        items[array->array.count++] = item;
        skip_space(p);
        if (peek(p) == ',') {
            p->at++;
        } else if (peek(p) == ']') {
            p->at++;
            return array;
        } else {
            fail(p, JSON_MALFORMED);
            goto failed;
        }
    }
failed:
    json_free(array);
    return NULL;
}

static json_value_t *parse_object(parser_t *p)
{
    json_value_t *object = new_value(p, JSON_OBJECT);
    if (!object)
        return NULL;
    p->at++; /* '{' */
    skip_space(p);
    if (peek(p) == '}') {
        p->at++;
        return object;
    }
    for (;;) {
        json_member_t member = {0};
        skip_space(p);
        if (peek(p) != '"') {
            fail(p, JSON_MALFORMED);
            goto failed;
        }
        if (!parse_string(p, &member.key, &member.key_length))
            goto failed;
        skip_space(p);
        if (peek(p) != ':') {
            free(member.key);
            fail(p, JSON_MALFORMED);
            goto failed;
        }
        p->at++;
        member.value = parse_value(p);
        if (!member.value) {
            free(member.key);
            goto failed;
        }
        json_member_t *members = grow(object->object.members, &object->object.capacity, object->object.count,
                                      sizeof *members);
        if (!members) {
            free(member.key);
            json_free(member.value);
            fail(p, JSON_NO_MEMORY);
            goto failed;
        }
        object->object.members = members;
        members[object->object.count++] = member;
        skip_space(p);
        if (peek(p) == ',') {
            p->at++;
        } else if (peek(p) == '}') {
            p->at++;
            return object;
        } else {
            fail(p, JSON_MALFORMED);
            goto failed;
        }
    }
failed:
    json_free(object);
    return NULL;
}

static json_value_t *parse_value(parser_t *p)
{
    skip_space(p);
    switch (peek(p)) {
    case '{':
    case '[': {
        if (p->depth == JSON_MAX_DEPTH)
            return fail(p, JSON_MALFORMED);
        p->depth++;
        json_value_t *value = peek(p) == '{' ? parse_object(p) : parse_array(p);
        p->depth--;
        return value;
    }
    case '"':
        return parse_string_value(p);
    case 't':
        return parse_literal(p, "true", JSON_BOOL, true);
    case 'f':
        return parse_literal(p, "false", JSON_BOOL, false);
    case 'n':
        return parse_literal(p, "null", JSON_NULL, false);
    default:
        return parse_number(p);
    }
}

json_status_t json_parse(const uint8_t *text, size_t length, json_value_t **out)
{
    *out = NULL;
    if (!text)
        return JSON_MALFORMED;
    parser_t p = {.at = text, .end = text + length, .depth = 0, .status = JSON_OK};
    json_value_t *value = parse_value(&p);
    if (!value)
        return p.status == JSON_OK ? JSON_MALFORMED : p.status;
    skip_space(&p);
    if (p.at != p.end) { /* text after the value */
        json_free(value);
        return JSON_MALFORMED;
    }
    *out = value;
    return JSON_OK;
}

void json_free(json_value_t *value)
{
    if (!value)
        return;
    switch (value->kind) {
    case JSON_STRING:
        free(value->string.bytes);
        break;
    case JSON_ARRAY:
        for (size_t i = 0; i < value->array.count; i++)
            json_free(value->array.items[i]);
        free(value->array.items);
        break;
    case JSON_OBJECT:
        for (size_t i = 0; i < value->object.count; i++) {
            free(value->object.members[i].key);
            json_free(value->object.members[i].value);
        }
        free(value->object.members);
        break;
    default:
        break;
    }
    free(value);
}

const json_value_t *json_get(const json_value_t *object, const char *key)
{
    if (!object || object->kind != JSON_OBJECT)
        return NULL;
    size_t length = strlen(key);
    /* From the end: of a key given twice, the last counts, as in most JSON readers. */
    for (size_t i = object->object.count; i-- > 0;) {
        const json_member_t *member = &object->object.members[i];
        if (member->key_length == length && memcmp(member->key, key, length) == 0)
            return member->value;
    }
    return NULL;
}

const char *json_string(const json_value_t *value, size_t *length)
{
    if (!value || value->kind != JSON_STRING)
        return NULL;
    *length = value->string.length;
    return value->string.bytes;
}

bool json_integer(const json_value_t *value, int64_t *out)
{
    if (!value || value->kind != JSON_NUMBER || !value->number.is_integer)
        return false;
    *out = value->number.integer;
    return true;
}

bool json_number(const json_value_t *value, double *out)
{
    if (!value || value->kind != JSON_NUMBER)
        return false;
    *out = value->number.real;
    return true;
}

size_t json_count(const json_value_t *array)
{
    return array && array->kind == JSON_ARRAY ? array->array.count : 0;
}

const json_value_t *json_item(const json_value_t *array, size_t index)
{
    return index < json_count(array) ? array->array.items[index] : NULL;
}

/* ------------------------------------------------------------------------------------------------
 * Writing
 */

enum { JSON_WRITER_MAX_DEPTH = 64 }; /* one bit of has_items per level */

void json_writer_init(json_writer_t *writer)
{
    memset(writer, 0, sizeof *writer);
}

static void put(json_writer_t *w, const void *bytes, size_t length)
{
    if (w->failed)
        return;
    if (length > w->capacity - w->length) {
        size_t capacity = w->capacity ? w->capacity : 256;
        while (capacity - w->length < length) {
            if (capacity > SIZE_MAX / 2) {
                w->failed = true;
                return;
            }
            capacity *= 2;
        }
        uint8_t *moved = realloc(w->data, capacity);
        if (!moved) {
            w->failed = true;
            return;
        }
        w->data = moved;
        w->capacity = capacity;
    }
    memcpy(w->data + w->length, bytes, length);
    w->length += length;
}

static void put_text(json_writer_t *w, const char *text)
{
    put(w, text, strlen(text));
}

/* The comma between two items of an array or two members of an object. */
static void separate(json_writer_t *w)
{
    if (w->depth == 0)
        return;
    uint64_t bit = UINT64_C(1) << (w->depth - 1);
    if (w->has_items & bit)
        put(w, ",", 1);
    w->has_items |= bit;
}

static void before_value(json_writer_t *w)
{
    if (w->after_key)
        w->after_key = false; /* a member's value: its key brought the comma */
    else
        separate(w);
}

static void open_container(json_writer_t *w, char bracket)
{
    before_value(w);
    if (w->depth == JSON_WRITER_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    put(w, &bracket, 1);
    w->depth++;
    w->has_items &= ~(UINT64_C(1) << (w->depth - 1));
}

static void close_container(json_writer_t *w, char bracket)
{
    if (w->depth == 0 || w->after_key) { /* nothing open, or a key without its value */
        w->failed = true;
        return;
    }
    put(w, &bracket, 1);
    w->depth--;
}

void json_begin_object(json_writer_t *writer) { open_container(writer, '{'); }
void json_end_object(json_writer_t *writer) { close_container(writer, '}'); }
void json_begin_array(json_writer_t *writer) { open_container(writer, '['); }
void json_end_array(json_writer_t *writer) { close_container(writer, ']'); }

/* A string's quoted, escaped form: quote and backslash escaped, control characters as \u00XX,
 * everything else as it is. A byte that is not well-formed UTF-8 becomes U+FFFD, so the document
 * stays valid whatever the caller passed. */
static void put_quoted(json_writer_t *w, const char *text, size_t length)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *bytes = (const uint8_t *)text;
    put(w, "\"", 1);
    for (size_t i = 0; i < length;) {
        uint8_t c = bytes[i];
        if (c == '"' || c == '\\') {
            char escaped[2] = {'\\', (char)c};
            put(w, escaped, 2);
            i++;
        } else if (c < 0x20) {
            char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
            put(w, escaped, 6);
            i++;
        } else {
            uint32_t scalar;
            size_t n = utf8_decode(bytes + i, length - i, &scalar);
            if (n == 0) {
                put_text(w, "\\ufffd");
                i++;
            } else {
                put(w, bytes + i, n);
                i += n;
            }
        }
    }
    put(w, "\"", 1);
}

void json_key(json_writer_t *writer, const char *key)
{
    if (writer->depth == 0 || writer->after_key) {
        writer->failed = true;
        return;
    }
    separate(writer);
    put_quoted(writer, key, strlen(key));
    put(writer, ":", 1);
    writer->after_key = true;
}

void json_write_string(json_writer_t *writer, const char *bytes, size_t length)
{
    before_value(writer);
    put_quoted(writer, bytes, length);
}

void json_write_text(json_writer_t *writer, const char *text)
{
    json_write_string(writer, text, strlen(text));
}

void json_write_integer(json_writer_t *writer, int64_t value)
{
    char digits[24];
    snprintf(digits, sizeof digits, "%lld", (long long)value); /* %d takes no locale grouping */
    before_value(writer);
    put_text(writer, digits);
}

void json_write_real(json_writer_t *writer, double value)
{
    char text[40];
    if (!isfinite(value)) { /* JSON has no NaN or infinity */
        json_write_null(writer);
        return;
    }
    if (value >= -9007199254740992.0 && value <= 9007199254740992.0 && value == (double)(int64_t)value) {
        /* A whole number below 2^53 is exact as an integer: write it so (796809600, not 7.968096e+08). */
        snprintf(text, sizeof text, "%.0f", value);
    } else {
        /* The shortest form that reads back as the same double. */
        for (int precision = 1; precision <= 17; precision++) {
            snprintf(text, sizeof text, "%.*g", precision, value);
            if (strtod(text, NULL) == value)
                break;
        }
        /* The locale's decimal point back to JSON's. */
        const char *point = locale_decimal_point();
        char *found = strstr(text, point);
        if (found && strcmp(point, ".") != 0) {
            size_t point_length = strlen(point);
            *found = '.';
            memmove(found + 1, found + point_length, strlen(found + point_length) + 1);
        }
    }
    before_value(writer);
    put_text(writer, text);
}

void json_write_bool(json_writer_t *writer, bool value)
{
    before_value(writer);
    put_text(writer, value ? "true" : "false");
}

void json_write_null(json_writer_t *writer)
{
    before_value(writer);
    put_text(writer, "null");
}

void json_write_value(json_writer_t *writer, const json_value_t *value)
{
    if (!value) {
        json_write_null(writer);
        return;
    }
    switch (value->kind) {
    case JSON_NULL:
        json_write_null(writer);
        break;
    case JSON_BOOL:
        json_write_bool(writer, value->boolean);
        break;
    case JSON_NUMBER:
        if (value->number.is_integer)
            json_write_integer(writer, value->number.integer);
        else
            json_write_real(writer, value->number.real);
        break;
    case JSON_STRING:
        json_write_string(writer, value->string.bytes, value->string.length);
        break;
    case JSON_ARRAY:
        json_begin_array(writer);
        for (size_t i = 0; i < value->array.count; i++)
            json_write_value(writer, value->array.items[i]);
        json_end_array(writer);
        break;
    case JSON_OBJECT:
        json_begin_object(writer);
        for (size_t i = 0; i < value->object.count; i++) {
            const json_member_t *member = &value->object.members[i];
            separate(writer);
            put_quoted(writer, member->key, member->key_length);
            put(writer, ":", 1);
            writer->after_key = true;
            json_write_value(writer, member->value);
        }
        json_end_object(writer);
        break;
    }
}

void json_member_string(json_writer_t *writer, const char *key, const char *bytes, size_t length)
{
    json_key(writer, key);
    json_write_string(writer, bytes, length);
}

void json_member_text(json_writer_t *writer, const char *key, const char *text)
{
    json_key(writer, key);
    json_write_text(writer, text);
}

void json_member_integer(json_writer_t *writer, const char *key, int64_t value)
{
    json_key(writer, key);
    json_write_integer(writer, value);
}

void json_member_real(json_writer_t *writer, const char *key, double value)
{
    json_key(writer, key);
    json_write_real(writer, value);
}

void json_member_null(json_writer_t *writer, const char *key)
{
    json_key(writer, key);
    json_write_null(writer);
}

void json_member_object(json_writer_t *writer, const char *key)
{
    json_key(writer, key);
    json_begin_object(writer);
}

void json_member_array(json_writer_t *writer, const char *key)
{
    json_key(writer, key);
    json_begin_array(writer);
}

bool json_writer_take(json_writer_t *writer, uint8_t **data, size_t *length)
{
    if (writer->failed || writer->depth != 0 || writer->after_key || writer->length == 0) {
        json_writer_discard(writer);
        return false;
    }
    *data = writer->data;
    *length = writer->length;
    json_writer_init(writer);
    return true;
}

void json_writer_discard(json_writer_t *writer)
{
    free(writer->data);
    json_writer_init(writer);
}
