/*
 * utf8.h — the few things the plugin does with UTF-8 text: decode and encode one Unicode scalar
 * value, trim whitespace, count characters.
 *
 * "Characters" here are Unicode scalar values (code points other than surrogates), the unit the
 * plugin's length limits are stated in, and "whitespace" is Unicode's White_Space property — the
 * same sets Rust's str::trim and chars().count() use, so the C and Rust plugins agree.
 */
#ifndef TESSERA_C_NOTES_UTF8_H
#define TESSERA_C_NOTES_UTF8_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* The length (1-4) of the well-formed UTF-8 sequence at `bytes`, reading at most `available`
 * bytes, with its scalar value in *scalar; 0 if there is none there (a stray byte, an overlong
 * form, a surrogate, a value above U+10FFFF, a sequence cut short). */
size_t utf8_decode(const uint8_t *bytes, size_t available, uint32_t *scalar);

/* Writes the scalar value's UTF-8 form to `out` and answers its length; 0 for a surrogate or a
 * value above U+10FFFF. */
size_t utf8_encode(uint32_t scalar, uint8_t out[4]);

/* The text without leading and trailing whitespace: a pointer into the same bytes, and its length. */
const char *utf8_trim(const char *text, size_t length, size_t *trimmed_length);

/* The number of scalar values in the text; a byte that is not part of a well-formed sequence
 * counts as one (it would be shown as U+FFFD). */
size_t utf8_count(const char *text, size_t length);

#pragma GCC visibility pop

#endif /* TESSERA_C_NOTES_UTF8_H */
