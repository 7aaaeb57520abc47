// Sixteen SHA-256 computations at once, one per 32-bit lane of an AVX-512 register (FIPS 180-4).
// One SHA-256 stream on this kind of CPU runs at SHA-NI's pace (about 1.4 GB/s a core), and
// interleaving two to four SHA-NI streams gained only 1.2 to 1.4 times here; sixteen messages side
// by side in AVX-512 lanes ran at about twice one SHA-NI stream (measured, see the commit). The
// chunks of an archive are independent messages, so `verify` hashes sixteen at a time. The scalar
// code pads and finishes each message.
#include "sha256_lanes.h"

#include <string.h>

static const uint32_t sha256_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
static const uint32_t sha256_initial[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static inline uint32_t rotate_right(uint32_t value, int count) { return (value >> count) | (value << (32 - count)); }

static inline uint32_t load_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/// One 64-byte block into one chaining state, scalar (for the last blocks of a message).
static void sha256_block_scalar(uint32_t h[8], const uint8_t *block) {
    uint32_t w[64];
    for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotate_right(w[t - 15], 7) ^ rotate_right(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotate_right(w[t - 2], 17) ^ rotate_right(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = k + (rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25)) + ((e & f) ^ (~e & g)) +
                      sha256_constants[t] + w[t];
        uint32_t t2 = (rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

void sha256_lanes_reset(sha256_lanes_state *state, int lane) {
    for (int w = 0; w < 8; w++) state->words[w][lane] = sha256_initial[w];
}

void sha256_lanes_finish(const sha256_lanes_state *state, int lane, const uint8_t *tail, size_t tail_length,
                         uint64_t total_length, uint8_t digest[32]) {
    uint32_t h[8];
    for (int w = 0; w < 8; w++) h[w] = state->words[w][lane];
    uint8_t last[128] = {0};
    if (tail_length) memcpy(last, tail, tail_length);
    last[tail_length] = 0x80;
    size_t length = tail_length < 56 ? 64 : 128;
    uint64_t bits = total_length << 3;
    for (int i = 0; i < 8; i++) last[length - 1 - i] = (uint8_t)(bits >> (8 * i));
    sha256_block_scalar(h, last);
    if (length == 128) sha256_block_scalar(h, last + 64);
    for (int w = 0; w < 8; w++) {
        for (int i = 0; i < 4; i++) digest[4 * w + i] = (uint8_t)(h[w] >> (24 - 8 * i));
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

#include "lanes_transpose.h"

#define SHA256_LANES_TARGET __attribute__((target("avx512f,avx512bw")))

int sha256_lanes_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") ? 1 : 0;
}

// Three-input truth tables (bit (x<<2 | y<<1 | z)): exclusive or, choose, majority.
#define SHA256_XOR3 0x96
#define SHA256_CH 0xCA  /* (x & y) ^ (~x & z) */
#define SHA256_MAJ 0xE8 /* (x & y) ^ (x & z) ^ (y & z) */

#define SHA256_SIGMA(x, r1, r2, r3) \
    _mm512_ternarylogic_epi32(_mm512_ror_epi32(x, r1), _mm512_ror_epi32(x, r2), _mm512_ror_epi32(x, r3), SHA256_XOR3)
#define SHA256_SMALL_SIGMA(x, r1, r2, s) \
    _mm512_ternarylogic_epi32(_mm512_ror_epi32(x, r1), _mm512_ror_epi32(x, r2), _mm512_srli_epi32(x, s), SHA256_XOR3)

SHA256_LANES_TARGET void sha256_lanes_blocks(sha256_lanes_state *state, const uint8_t *const data[SHA256_LANES],
                                             size_t blocks) {
    static const uint8_t idle[64];
    // Message words are big-endian: swap the bytes of each 32-bit word.
    const __m512i byte_swap = _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3));
    const uint8_t *pointers[SHA256_LANES];
    uint32_t stride[SHA256_LANES];
    __mmask16 active = 0;
    for (int l = 0; l < SHA256_LANES; l++) {
        pointers[l] = data[l] ? data[l] : idle;
        stride[l] = data[l] ? 64 : 0;
        if (data[l]) active |= (__mmask16)(1u << l);
    }
    __m512i h[8];
    for (int w = 0; w < 8; w++) h[w] = _mm512_loadu_si512(state->words[w]);
    for (size_t block = 0; block < blocks; block++) {
        __m512i w[16];
        for (int l = 0; l < SHA256_LANES; l++) {
            w[l] = _mm512_loadu_si512(pointers[l]);
            pointers[l] += stride[l];
        }
        lanes_transpose16(w);
        for (int i = 0; i < 16; i++) w[i] = _mm512_shuffle_epi8(w[i], byte_swap);
        __m512i a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        // The schedule is kept as a ring of sixteen words, each replaced by the one sixteen steps on.
#pragma GCC unroll 64
        for (int t = 0; t < 64; t++) {
            if (t >= 16) {
                __m512i s0 = SHA256_SMALL_SIGMA(w[(t - 15) & 15], 7, 18, 3);
                __m512i s1 = SHA256_SMALL_SIGMA(w[(t - 2) & 15], 17, 19, 10);
                w[t & 15] = _mm512_add_epi32(_mm512_add_epi32(w[t & 15], s0), _mm512_add_epi32(w[(t - 7) & 15], s1));
            }
            __m512i t1 = _mm512_add_epi32(k, _mm512_add_epi32(w[t & 15], _mm512_set1_epi32((int)sha256_constants[t])));
            t1 = _mm512_add_epi32(t1, SHA256_SIGMA(e, 6, 11, 25));
            t1 = _mm512_add_epi32(t1, _mm512_ternarylogic_epi32(e, f, g, SHA256_CH));
            __m512i t2 = _mm512_add_epi32(SHA256_SIGMA(a, 2, 13, 22), _mm512_ternarylogic_epi32(a, b, c, SHA256_MAJ));
            k = g;
            g = f;
            f = e;
            e = _mm512_add_epi32(d, t1);
            d = c;
            c = b;
            b = a;
            a = _mm512_add_epi32(t1, t2);
        }
        // Idle lanes keep their state.
        h[0] = _mm512_mask_add_epi32(h[0], active, h[0], a);
        h[1] = _mm512_mask_add_epi32(h[1], active, h[1], b);
        h[2] = _mm512_mask_add_epi32(h[2], active, h[2], c);
        h[3] = _mm512_mask_add_epi32(h[3], active, h[3], d);
        h[4] = _mm512_mask_add_epi32(h[4], active, h[4], e);
        h[5] = _mm512_mask_add_epi32(h[5], active, h[5], f);
        h[6] = _mm512_mask_add_epi32(h[6], active, h[6], g);
        h[7] = _mm512_mask_add_epi32(h[7], active, h[7], k);
    }
    for (int w = 0; w < 8; w++) _mm512_storeu_si512(state->words[w], h[w]);
}

#else

int sha256_lanes_available(void) { return 0; }

void sha256_lanes_blocks(sha256_lanes_state *state, const uint8_t *const data[SHA256_LANES], size_t blocks) {
    // Never called where sha256_lanes_available() is 0; kept correct all the same.
    for (int l = 0; l < SHA256_LANES; l++) {
        if (!data[l]) continue;
        uint32_t h[8];
        for (int w = 0; w < 8; w++) h[w] = state->words[w][l];
        for (size_t block = 0; block < blocks; block++) sha256_block_scalar(h, data[l] + 64 * block);
        for (int w = 0; w < 8; w++) state->words[w][l] = h[w];
    }
}

#endif
