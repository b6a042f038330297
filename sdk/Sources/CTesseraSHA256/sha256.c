// SHA-256's compression in portable C (FIPS 180-4 §6.2.2), the dispatch to the SHA extensions,
// and PBKDF2-HMAC-SHA256 (RFC 8018 §5.2, RFC 2104) with the HMAC's inner and outer key states
// computed once, so each iteration costs two compressions of one block.

#include "CTesseraSHA256.h"
#include "round_constants.h"
#include <string.h>

// The round constants (FIPS 180-4 §4.2.2), aligned for the SHA extensions' 16-byte loads
// (sha256_ni.c reads them too).
const uint32_t tessera_sha256_round_constants[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t initial_state[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static inline uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static inline uint32_t load_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

void tessera_sha256_portable_compress(uint32_t state[8], const uint8_t *blocks, size_t block_count) {
    uint32_t w[64];
    for (size_t n = 0; n < block_count; n++, blocks += 64) {
        for (int t = 0; t < 16; t++) w[t] = load_be32(blocks + 4 * t);
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + tessera_sha256_round_constants[t] + w[t];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1;
            d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
    }
}

void tessera_sha256_compress(uint32_t state[8], const uint8_t *blocks, size_t block_count) {
    static int hardware = -1;  // checked once; a race only repeats the check
    if (hardware < 0) hardware = tessera_sha256_hw_available();
    if (hardware) tessera_sha256_hw_compress(state, blocks, block_count);
    else tessera_sha256_portable_compress(state, blocks, block_count);
}

/// Hashes `count` bytes at `message` from `start`, which has already absorbed `prefix` bytes (a
/// multiple of 64), and writes the 32-byte digest to `out`.
static void finish(const uint32_t start[8], uint64_t prefix, const uint8_t *message, size_t count, uint8_t out[32]) {
    uint32_t state[8];
    memcpy(state, start, sizeof state);
    size_t whole = count & ~(size_t)63;
    tessera_sha256_compress(state, message, whole / 64);
    uint8_t tail[128] = {0};
    size_t rest = count - whole;
    memcpy(tail, message + whole, rest);
    tail[rest] = 0x80;
    size_t tail_count = rest < 56 ? 64 : 128;
    uint64_t bits = (prefix + count) * 8;
    for (int i = 0; i < 8; i++) tail[tail_count - 1 - i] = (uint8_t)(bits >> (8 * i));
    tessera_sha256_compress(state, tail, tail_count / 64);
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, state[i]);
}

void tessera_pbkdf2_hmac_sha256(const uint8_t *password, size_t password_count, const uint8_t *salt, size_t salt_count,
                                uint32_t iterations, uint8_t out[32]) {
    // The HMAC key block: the password, or its digest when longer than a block; zero-padded.
    uint8_t key[64] = {0};
    if (password_count > 64) finish(initial_state, 0, password, password_count, key);
    else memcpy(key, password, password_count);
    uint8_t pad[64];
    uint32_t inner[8], outer[8];
    memcpy(inner, initial_state, sizeof inner);
    memcpy(outer, initial_state, sizeof outer);
    for (int i = 0; i < 64; i++) pad[i] = key[i] ^ 0x36;
    tessera_sha256_compress(inner, pad, 1);
    for (int i = 0; i < 64; i++) pad[i] = key[i] ^ 0x5c;
    tessera_sha256_compress(outer, pad, 1);

    // U1 = HMAC(password, salt || INT(1)).
    uint8_t u[32], digest[32];
    {
        uint8_t stack[256];
        uint8_t *message = salt_count + 4 <= sizeof stack ? stack : NULL;
        // A salt longer than the stack buffer is hashed in two steps: its whole blocks first.
        if (message) {
            memcpy(message, salt, salt_count);
            memcpy(message + salt_count, "\0\0\0\1", 4);
            finish(inner, 64, message, salt_count + 4, digest);
        } else {
            uint32_t state[8];
            memcpy(state, inner, sizeof state);
            size_t whole = salt_count & ~(size_t)63;
            tessera_sha256_compress(state, salt, whole / 64);
            uint8_t rest[68];
            memcpy(rest, salt + whole, salt_count - whole);
            memcpy(rest + (salt_count - whole), "\0\0\0\1", 4);
            finish(state, 64 + whole, rest, salt_count - whole + 4, digest);
        }
        finish(outer, 64, digest, 32, u);
    }
    memcpy(out, u, 32);

    // U2 ... Uc: each an HMAC of the 32 bytes before it, one block for the inner and one for the outer.
    uint8_t block[64] = {0};
    block[32] = 0x80;
    block[62] = 0x03;  // the bit length of 64 + 32 bytes: 768 = 0x0300
    for (uint32_t n = 1; n < iterations; n++) {
        uint32_t state[8];
        memcpy(block, u, 32);
        memcpy(state, inner, sizeof state);
        tessera_sha256_compress(state, block, 1);
        for (int i = 0; i < 8; i++) store_be32(block + 4 * i, state[i]);
        memcpy(state, outer, sizeof state);
        tessera_sha256_compress(state, block, 1);
        for (int i = 0; i < 8; i++) store_be32(u + 4 * i, state[i]);
        for (int i = 0; i < 32; i++) out[i] ^= u[i];
    }
}
