/*
 * duration.c — "1h30m" to seconds (duration.h).
 */
#include "duration.h"

static int64_t unit_seconds(char unit)
{
    switch (unit) {
    case 'd': return 86400;
    case 'h': return 3600;
    case 'm': return 60;
    case 's': return 1;
    default: return 0;
    }
}

bool duration_parse(const char *text, size_t length, int64_t limit, int64_t *seconds)
{
    if (length == 0 || limit < 0)
        return false;
    int64_t total = 0;
    size_t i = 0;
    while (i < length) {
        size_t first_digit = i;
        int64_t count = 0;
        for (; i < length && text[i] >= '0' && text[i] <= '9'; i++) {
            int64_t digit = text[i] - '0';
            if (count > (limit - digit) / 10)
                return false; /* this group alone is already too long a wait */
            count = count * 10 + digit;
        }
        if (i == first_digit || i == length)
            return false; /* a group needs digits, then a unit */
        int64_t unit = unit_seconds(text[i++]);
        if (unit == 0 || count > (limit - total) / unit)
            return false;
        total += count * unit;
    }
    *seconds = total;
    return true;
}
