/*
 * utf8.c — UTF-8 decoding, encoding, trimming and counting (utf8.h).
 */
#include "utf8.h"

#include <stdbool.h>

size_t utf8_decode(const uint8_t *bytes, size_t available, uint32_t *scalar)
{
    if (available == 0)
        return 0;
    uint8_t lead = bytes[0];
    if (lead < 0x80) {
        *scalar = lead;
        return 1;
    }

    /* RFC 3629's table: the lead byte gives the length and the range the second byte must be in,
     * which is what rules out overlong forms (E0, F0), surrogates (ED) and values past U+10FFFF (F4). */
    size_t length;
    uint8_t second_low = 0x80, second_high = 0xBF;
    uint32_t value;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
        value = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        value = lead & 0x0Fu;
        if (lead == 0xE0)
            second_low = 0xA0;
        if (lead == 0xED)
            second_high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        value = lead & 0x07u;
        if (lead == 0xF0)
            second_low = 0x90;
        if (lead == 0xF4)
            second_high = 0x8F;
    } else {
        return 0;
    }
    if (available < length)
        return 0;
    if (bytes[1] < second_low || bytes[1] > second_high)
        return 0;
    for (size_t i = 1; i < length; i++) {
        if ((bytes[i] & 0xC0u) != 0x80u)
            return 0;
        value = (value << 6) | (bytes[i] & 0x3Fu);
    }
    *scalar = value;
    return length;
}

size_t utf8_encode(uint32_t scalar, uint8_t out[4])
{
    if (scalar < 0x80) {
        out[0] = (uint8_t)scalar;
        return 1;
    }
    if (scalar < 0x800) {
        out[0] = (uint8_t)(0xC0 | (scalar >> 6));
        out[1] = (uint8_t)(0x80 | (scalar & 0x3F));
        return 2;
    }
    if (scalar >= 0xD800 && scalar <= 0xDFFF)
        return 0;
    if (scalar < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (scalar >> 12));
        out[1] = (uint8_t)(0x80 | ((scalar >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (scalar & 0x3F));
        return 3;
    }
    if (scalar <= 0x10FFFF) {
        out[0] = (uint8_t)(0xF0 | (scalar >> 18));
        out[1] = (uint8_t)(0x80 | ((scalar >> 12) & 0x3F));
        out[2] = (uint8_t)(0x80 | ((scalar >> 6) & 0x3F));
        out[3] = (uint8_t)(0x80 | (scalar & 0x3F));
        return 4;
    }
    return 0;
}

/* Unicode's White_Space property (PropList.txt): tab to carriage return, space, next line,
 * no-break space, ogham space, the en quad to hair space run, line and paragraph separators,
 * narrow no-break space, medium mathematical space, ideographic space. */
static bool is_whitespace(uint32_t scalar)
{
    return (scalar >= 0x09 && scalar <= 0x0D) || scalar == 0x20 || scalar == 0x85 || scalar == 0xA0 ||
           scalar == 0x1680 || (scalar >= 0x2000 && scalar <= 0x200A) || scalar == 0x2028 ||
           scalar == 0x2029 || scalar == 0x202F || scalar == 0x205F || scalar == 0x3000;
}

const char *utf8_trim(const char *text, size_t length, size_t *trimmed_length)
{
    const uint8_t *bytes = (const uint8_t *)text;
    size_t start = 0, end = length;
    uint32_t scalar;

    for (;;) {
        size_t n = utf8_decode(bytes + start, end - start, &scalar);
        if (n == 0 || !is_whitespace(scalar))
            break;
        start += n;
    }
    while (end > start) {
        /* Step back to the last sequence's lead byte: at most three continuation bytes before it. */
        size_t lead = end - 1;
        while (lead > start && end - lead < 4 && (bytes[lead] & 0xC0u) == 0x80u)
            lead--;
        size_t n = utf8_decode(bytes + lead, end - lead, &scalar);
        if (n != end - lead || !is_whitespace(scalar))
            break;
        end = lead;
    }
    *trimmed_length = end - start;
    return text + start;
}

size_t utf8_count(const char *text, size_t length)
{
    const uint8_t *bytes = (const uint8_t *)text;
    size_t count = 0;
    uint32_t scalar;
    for (size_t i = 0; i < length; count++) {
        size_t n = utf8_decode(bytes + i, length - i, &scalar);
        i += n ? n : 1;
    }
    return count;
}
