#ifndef TESSERA_SHA256_ROUND_CONSTANTS_H
#define TESSERA_SHA256_ROUND_CONSTANTS_H

// SHA-256's 64 round constants, defined once in sha256.c, 16-byte aligned. Private to the target.

#include <stdint.h>

extern const uint32_t tessera_sha256_round_constants[64];

#endif
