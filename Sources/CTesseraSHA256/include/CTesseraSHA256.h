#ifndef C_TESSERA_SHA256_H
#define C_TESSERA_SHA256_H

// SHA-256 block compression (FIPS 180-4) with the x86 SHA extensions (SHA-NI).
//
// The Swift SHA256 in TesseraLoader calls this when tessera_sha256_hw_available() says the CPU
// can run it, and keeps its own portable code otherwise. On non-x86_64 builds the check
// returns 0 and the compression does nothing.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 if this CPU has the SHA extensions and SSE4.1 (and so SSSE3), else 0.
int tessera_sha256_hw_available(void);

/// Runs the compression function over `block_count` consecutive 64-byte blocks at `blocks`
/// (any alignment), updating `state` (the eight working words a...h, in order, native endian).
/// Only call it when tessera_sha256_hw_available() returned 1.
void tessera_sha256_hw_compress(uint32_t state[8], const uint8_t *blocks, size_t block_count);

#ifdef __cplusplus
}
#endif

#endif
