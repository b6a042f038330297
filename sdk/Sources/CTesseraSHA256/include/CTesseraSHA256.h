#ifndef C_TESSERA_SHA256_H
#define C_TESSERA_SHA256_H

// SHA-256 block compression (FIPS 180-4), and PBKDF2-HMAC-SHA256 (RFC 8018) on top of it.
//
// The SDK's Swift SHA256 (and so the host's loader, the hub and every plugin) compresses through
// here: with the x86 SHA extensions (SHA-NI) when tessera_sha256_hw_available() says the CPU can
// run them, else in portable C. This target is compiled optimised in every configuration
// (sdk/Package.swift), so a PIN's 210,000 PBKDF2 iterations cost well under a second in a debug
// build too. On non-x86_64 builds the hardware check returns 0.

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

/// The same compression in portable C, on any CPU.
void tessera_sha256_portable_compress(uint32_t state[8], const uint8_t *blocks, size_t block_count);

/// The compression with the SHA extensions when the CPU has them, else in portable C.
void tessera_sha256_compress(uint32_t state[8], const uint8_t *blocks, size_t block_count);

/// PBKDF2-HMAC-SHA256 (RFC 8018 §5.2) with a 32-byte derived key (one block): `iterations` >= 1.
/// Reads `password_count` bytes at `password` and `salt_count` at `salt`; writes 32 bytes to `out`.
void tessera_pbkdf2_hmac_sha256(const uint8_t *password, size_t password_count, const uint8_t *salt, size_t salt_count,
                                uint32_t iterations, uint8_t out[32]);

#ifdef __cplusplus
}
#endif

#endif
