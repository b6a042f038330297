/*
 * duration.h — how long a reminder waits, as a person types it: "30m", "2h", "1d", "1h30m", "45s".
 */
#ifndef TESSERA_C_NOTES_DURATION_H
#define TESSERA_C_NOTES_DURATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Reads one or more groups of <digits><unit>, unit d, h, m or s (lower case, nothing between or
 * around them), into *seconds, their sum. False if the text is not of that form or the sum is over
 * `limit` seconds (checked as it goes, so no number of digits overflows). A sum of 0 is read as 0:
 * whether that is a wait is the caller's rule. */
bool duration_parse(const char *text, size_t length, int64_t limit, int64_t *seconds);

#pragma GCC visibility pop

#endif /* TESSERA_C_NOTES_DURATION_H */
