/*
 * iso_time.c — ISO 8601 UTC text from wire seconds (iso_time.h).
 *
 * Computed by hand rather than with gmtime: gmtime is not thread-safe, gmtime_r is POSIX rather
 * than C11, and time_t's range differs between platforms.
 */
#include "iso_time.h"

#include <stdint.h>

/* Wire seconds at 0001-01-01T00:00:00Z and at 10000-01-01T00:00:00Z: four-digit years only. */
#define WIRE_TIME_MIN (-62135596800.0 - WIRE_TIME_UNIX_OFFSET)
#define WIRE_TIME_END (253402300800.0 - WIRE_TIME_UNIX_OFFSET)

/* The civil date of a day counted from 1970-01-01 (Howard Hinnant's days-to-civil algorithm,
 * proleptic Gregorian calendar: eras of 400 years starting on March 1st, so leap days come last). */
static void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
    days += 719468; /* from 0000-03-01 */
    const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const unsigned day_of_era = (unsigned)(days - era * 146097);                                    /* [0, 146096] */
    const unsigned year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    const unsigned shifted_month = (5 * day_of_year + 2) / 153;                                      /* March is 0 */
    *day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    *month = shifted_month < 10 ? shifted_month + 3 : shifted_month - 9;
    *year = (int64_t)year_of_era + era * 400 + (*month <= 2);
}

/* Writes `value` as exactly `width` digits, zero-padded, and answers the end. (By hand rather than
 * with snprintf, whose width a compiler cannot bound: gcc warns of truncation.) */
static char *put_digits(char *out, unsigned value, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        out[i] = (char)('0' + value % 10);
        value /= 10;
    }
    return out + width;
}

bool iso_time_format(double wire_seconds, char out[ISO_TIME_LENGTH + 1])
{
    out[0] = '\0';
    if (!(wire_seconds >= WIRE_TIME_MIN && wire_seconds < WIRE_TIME_END)) /* also false for NaN */
        return false;

    /* Round down, also before 2001, where a cast would round towards zero. */
    int64_t whole = (int64_t)wire_seconds;
    if ((double)whole > wire_seconds)
        whole -= 1;

    int64_t unix_seconds = whole + WIRE_TIME_UNIX_OFFSET;
    int64_t days = unix_seconds / 86400, second_of_day = unix_seconds % 86400;
    if (second_of_day < 0) {
        second_of_day += 86400;
        days -= 1;
    }

    int64_t year;
    unsigned month, day, seconds = (unsigned)second_of_day;
    civil_from_days(days, &year, &month, &day);

    char *at = out; /* "YYYY-MM-DDTHH:MM:SSZ" */
    at = put_digits(at, (unsigned)year, 4);
    *at++ = '-';
    at = put_digits(at, month, 2);
    *at++ = '-';
    at = put_digits(at, day, 2);
    *at++ = 'T';
    at = put_digits(at, seconds / 3600, 2);
    *at++ = ':';
    at = put_digits(at, seconds / 60 % 60, 2);
    *at++ = ':';
    at = put_digits(at, seconds % 60, 2);
    *at++ = 'Z';
    *at = '\0';
    return true;
}
