/*
 * iso_time.h — times on the wire as people read them.
 *
 * The host sends times as JSON numbers: seconds since 2001-01-01T00:00:00Z (Foundation's reference
 * date; Unix seconds = wire + 978307200). The plugin shows them, in its outputs and in its stored
 * columns, as ISO 8601 UTC with whole seconds: "2026-03-02T08:00:00Z", which also sorts as text.
 */
#ifndef TESSERA_C_NOTES_ISO_TIME_H
#define TESSERA_C_NOTES_ISO_TIME_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* Seconds from 1970-01-01 to 2001-01-01. */
#define WIRE_TIME_UNIX_OFFSET 978307200

/* "YYYY-MM-DDTHH:MM:SSZ" */
#define ISO_TIME_LENGTH 20

/* Writes the time (wire seconds, the fraction dropped: rounded down) to `out` as ISO 8601 UTC,
 * NUL-terminated. False, with `out` empty, for a time outside the years 0001–9999 or not finite. */
bool iso_time_format(double wire_seconds, char out[ISO_TIME_LENGTH + 1]);

#pragma GCC visibility pop

#endif /* TESSERA_C_NOTES_ISO_TIME_H */
