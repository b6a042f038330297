// SHA-256 compression with the x86 SHA extensions, written from Intel's description of the
// SHA256RNDS2, SHA256MSG1 and SHA256MSG2 instructions (Intel SDM vol. 2; "Intel SHA Extensions",
// Gulley et al., 2013). Only the functions that use the instructions carry a target attribute, so
// the file builds with the package's default flags and the caller checks the CPU at run time.

#include "CTesseraSHA256.h"
#include "round_constants.h"

#if defined(__x86_64__)

#include <immintrin.h>

int tessera_sha256_hw_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1")
        && __builtin_cpu_supports("ssse3");
}

#define TESSERA_SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

// Vector lanes are written low lane first: [w, x, y, z] has w in bits 31:0.
//
// SHA256RNDS2 takes the working variables split across two registers, (A, B, E, F) as
// [F, E, B, A] and (C, D, G, H) as [H, G, D, C], and two W[t] + K[t] sums in the low lanes of
// a third. It returns the new [F, E, B, A]; the new (C, D, G, H) is the old (A, B, E, F), so
// two calls with the registers' roles swapped make four rounds and leave them as they began.

/// Four rounds: t .. t+3, with `wk` = [W+K for t, t+1, t+2, t+3].
TESSERA_SHA_TARGET
static inline void four_rounds(__m128i *abef, __m128i *cdgh, __m128i wk) {
    *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, wk);              // rounds t, t+1
    *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, _mm_shuffle_epi32(wk, 0x0e)); // t+2, t+3
}

/// W[t .. t+3] from the four groups before them: w0 = W[t-16 .. t-13], ..., w3 = W[t-4 .. t-1].
///   W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16]
/// SHA256MSG1(w0, w1) = [W[t-16] + s0(W[t-15]), ...] for the four; adding W[t-7 .. t-4] (the
/// upper three words of w2 and the lowest of w3) leaves only the s1 terms, which SHA256MSG2
/// adds from w3 (W[t-2], W[t-1]) and from the two new words it has just made.
TESSERA_SHA_TARGET
static inline __m128i schedule(__m128i w0, __m128i w1, __m128i w2, __m128i w3) {
    __m128i partial = _mm_sha256msg1_epu32(w0, w1);
    partial = _mm_add_epi32(partial, _mm_alignr_epi8(w3, w2, 4));
    return _mm_sha256msg2_epu32(partial, w3);
}

TESSERA_SHA_TARGET
void tessera_sha256_hw_compress(uint32_t state[8], const uint8_t *blocks, size_t block_count) {
    if (block_count == 0) return;
    // The message words are big-endian: reverse the bytes of each 32-bit lane.
    const __m128i byteswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);

    // state[0..3] = [a, b, c, d], state[4..7] = [e, f, g, h]  ->  [f, e, b, a], [h, g, d, c]
    __m128i abcd = _mm_loadu_si128((const __m128i *)(const void *)state);
    __m128i efgh = _mm_loadu_si128((const __m128i *)(const void *)(state + 4));
    __m128i badc = _mm_shuffle_epi32(abcd, 0xb1);                 // [b, a, d, c]
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b);                 // [h, g, f, e]
    __m128i abef = _mm_alignr_epi8(badc, hgfe, 8);                // [f, e, b, a]
    __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xf0);             // [h, g, d, c]

    const __m128i *k = (const __m128i *)(const void *)tessera_sha256_round_constants;
    for (size_t n = 0; n < block_count; n++, blocks += 64) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i w[4];
        for (int i = 0; i < 4; i++) {
            w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(blocks + 16 * i)), byteswap);
            four_rounds(&abef, &cdgh, _mm_add_epi32(w[i], _mm_load_si128(k + i)));
        }
        // Groups 4 ... 15, keeping the last four groups of words in w[i % 4].
#pragma clang loop unroll(full)
        for (int i = 4; i < 16; i++) {
            __m128i next = schedule(w[i & 3], w[(i + 1) & 3], w[(i + 2) & 3], w[(i + 3) & 3]);
            w[i & 3] = next;
            four_rounds(&abef, &cdgh, _mm_add_epi32(next, _mm_load_si128(k + i)));
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }

    // [f, e, b, a], [h, g, d, c]  ->  [a, b, c, d], [e, f, g, h]
    __m128i efab = _mm_shuffle_epi32(abef, 0xb1);                 // [e, f, a, b]
    __m128i cdgh_ordered = _mm_shuffle_epi32(cdgh, 0x1b);         // [c, d, g, h]
    abcd = _mm_alignr_epi8(cdgh_ordered, efab, 8);                // [a, b, c, d]
    efgh = _mm_blend_epi16(efab, cdgh_ordered, 0xf0);             // [e, f, g, h]
    _mm_storeu_si128((__m128i *)(void *)state, abcd);
    _mm_storeu_si128((__m128i *)(void *)(state + 4), efgh);
}

#else

int tessera_sha256_hw_available(void) { return 0; }

void tessera_sha256_hw_compress(uint32_t state[8], const uint8_t *blocks, size_t block_count) {
    (void)state; (void)blocks; (void)block_count;
}

#endif
