// Sixteen SHA-256 computations at once, one per 32-bit lane of an AVX-512 register (FIPS 180-4),
// and one stream with the CPU's SHA extensions. SHA-256 is serial within a message, but the
// chunks of an archive are independent messages: hashing sixteen side by side does sixteen times
// the work per instruction, more than SHA-NI's one stream. The scalar code
// pads and finishes each message, and stands in where the CPU has neither extension.
#include "sha256_lanes.h"
#include "md5_lanes.h"
#include "md5_steps.h"
#include "block_buffer.h"

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

/// `blocks` 64-byte blocks into one chaining state, portable code.
static void sha256_blocks_scalar(uint32_t h[8], const uint8_t *data, size_t blocks) {
    for (; blocks > 0; blocks--, data += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++) w[i] = load_be32(data + 4 * i);
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (int i = 0; i < 64; i++) {
            uint32_t s1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
            uint32_t choice = (e & f) ^ (~e & g);
            uint32_t t1 = k + s1 + choice + sha256_constants[i] + w[i];
            uint32_t s0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
            uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            k = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + s0 + majority;
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
}

/// Pads the last `tail_length` (< 64) bytes of a message of `total_length` bytes into `h`.
static void sha256_pad(uint32_t h[8], const uint8_t *tail, size_t tail_length, uint64_t total_length,
                       void (*blocks)(uint32_t[8], const uint8_t *, size_t)) {
    uint8_t last[128] = {0};
    if (tail_length) memcpy(last, tail, tail_length);
    last[tail_length] = 0x80;
    size_t length = tail_length < 56 ? 64 : 128;
    uint64_t bits = total_length << 3;
    for (int i = 0; i < 8; i++) last[length - 1 - i] = (uint8_t)(bits >> (8 * i));
    blocks(h, last, length / 64);
}

static void store_digest(const uint32_t h[8], uint8_t digest[32]) {
    for (int w = 0; w < 8; w++) {
        for (int i = 0; i < 4; i++) digest[4 * w + i] = (uint8_t)(h[w] >> (24 - 8 * i));
    }
}

void sha256_lanes_reset(sha256_lanes_state *state, int lane) {
    for (int w = 0; w < 8; w++) state->words[w][lane] = sha256_initial[w];
}

void sha256_lanes_finish(const sha256_lanes_state *state, int lane, const uint8_t *tail, size_t tail_length,
                         uint64_t total_length, uint8_t digest[32]) {
    uint32_t h[8];
    for (int w = 0; w < 8; w++) h[w] = state->words[w][lane];
    sha256_pad(h, tail, tail_length, total_length, sha256_blocks_scalar);
    store_digest(h, digest);
}

void sha256_stream_init(sha256_stream *stream) {
    memcpy(stream->words, sha256_initial, sizeof stream->words);
    stream->buffered = 0;
    stream->length = 0;
}

void sha256_stream_init_from_lane(sha256_stream *stream, const sha256_lanes_state *state, int lane, uint64_t length) {
    for (int w = 0; w < 8; w++) stream->words[w] = state->words[w][lane];
    stream->buffered = 0;
    stream->length = length;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

#define HASH_LANES_TARGET __attribute__((target("avx512f")))
#define SHA256_LANES_TARGET HASH_LANES_TARGET
#define SHA256_NI_TARGET __attribute__((target("sha,sse4.1,ssse3")))
#include "transpose16.h"

int sha256_lanes_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? 1 : 0;
}

static int sha256_ni_available(void) {
    static int known = -1;
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1") ? 1 : 0;
    }
    return known;
}

/// Loads a chaining state (A … H) as SHA-NI holds it: ABEF and CDGH.
SHA256_NI_TARGET static inline void sha256_ni_load(const uint32_t h[8], __m128i *abef, __m128i *cdgh) {
    const __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);
    const __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);
    *abef = _mm_alignr_epi8(cdab, efgh, 8);
    *cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
}

/// Stores a chaining state held as ABEF and CDGH back as A … H.
SHA256_NI_TARGET static inline void sha256_ni_store(__m128i abef, __m128i cdgh, uint32_t h[8]) {
    const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(feba, dchg, 0xF0)); // DCBA
    _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(dchg, feba, 8));    // HGFE
}

/// A block's sixteen words, big-endian, as four vectors.
SHA256_NI_TARGET static inline void sha256_ni_message(const uint8_t *data, __m128i message[4]) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    for (int i = 0; i < 4; i++) {
        message[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), byte_swap);
    }
}

/// Words 4·step … 4·step + 3 of the message schedule plus their round constants; from step 4 on,
/// the schedule's next vector replaces the oldest of the four.
SHA256_NI_TARGET static inline __m128i sha256_ni_words(__m128i message[4], int step) {
    if (step >= 4) {
        // W[t..t+3] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], from the four vectors before.
        __m128i next = _mm_sha256msg1_epu32(message[step & 3], message[(step + 1) & 3]);
        next = _mm_add_epi32(next, _mm_alignr_epi8(message[(step + 3) & 3], message[(step + 2) & 3], 4));
        message[step & 3] = _mm_sha256msg2_epu32(next, message[(step + 3) & 3]);
    }
    return _mm_add_epi32(message[step & 3], _mm_loadu_si128((const __m128i *)&sha256_constants[4 * step]));
}

/// `blocks` 64-byte blocks into one chaining state with the SHA extensions (the form of Intel's
/// reference code): the state is kept as ABEF and CDGH, four rounds per step.
SHA256_NI_TARGET static void sha256_blocks_ni(uint32_t h[8], const uint8_t *data, size_t blocks) {
    __m128i state0, state1;
    sha256_ni_load(h, &state0, &state1);
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef = state0, cdgh = state1;
        __m128i message[4];
        sha256_ni_message(data, message);
        _Pragma("GCC unroll 16") for (int step = 0; step < 16; step++) {
            const __m128i words = sha256_ni_words(message, step);
            state1 = _mm_sha256rnds2_epu32(state1, state0, words);
            state0 = _mm_sha256rnds2_epu32(state0, state1, _mm_shuffle_epi32(words, 0x0E));
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);
    }
    sha256_ni_store(state0, state1, h);
}

/// The same `blocks` blocks into two chaining states at once (two messages that share these
/// bytes: a chunk and the body it belongs to). The message schedule is computed once, and the
/// two states' rounds are two independent dependency chains: SHA-NI's round instruction waits
/// on its own result, so one chain leaves the unit half idle and the second hash costs almost
/// nothing (measurements: Tools/bench/NOTES.md, 'SHA256Lanes').
SHA256_NI_TARGET static void sha256_blocks_ni_pair(uint32_t h[8], uint32_t g[8], const uint8_t *data, size_t blocks) {
    __m128i first0, first1, second0, second1;
    sha256_ni_load(h, &first0, &first1);
    sha256_ni_load(g, &second0, &second1);
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i first_abef = first0, first_cdgh = first1, second_abef = second0, second_cdgh = second1;
        __m128i message[4];
        sha256_ni_message(data, message);
        _Pragma("GCC unroll 16") for (int step = 0; step < 16; step++) {
            const __m128i words = sha256_ni_words(message, step);
            const __m128i high = _mm_shuffle_epi32(words, 0x0E);
            first1 = _mm_sha256rnds2_epu32(first1, first0, words);
            second1 = _mm_sha256rnds2_epu32(second1, second0, words);
            first0 = _mm_sha256rnds2_epu32(first0, first1, high);
            second0 = _mm_sha256rnds2_epu32(second0, second1, high);
        }
        first0 = _mm_add_epi32(first0, first_abef);
        first1 = _mm_add_epi32(first1, first_cdgh);
        second0 = _mm_add_epi32(second0, second_abef);
        second1 = _mm_add_epi32(second1, second_cdgh);
    }
    sha256_ni_store(first0, first1, h);
    sha256_ni_store(second0, second1, g);
}

int sha256_stream_pairs_available(void) { return sha256_ni_available(); }

/// `blocks` blocks into an MD5 chaining state and one SHA-256 state (or two: `second` non-null)
/// in one pass. MD5 (scalar code) and SHA-NI are each a chain of instructions that waits on its
/// own results, on different units, so side by side the SHA-256 costs almost nothing beside the
/// MD5.
SHA256_NI_TARGET static inline __attribute__((always_inline)) void md5_sha256_blocks_ni_body(
    uint32_t m[4], uint32_t h[8], uint32_t g[8], const int pair, const uint8_t *data, size_t blocks) {
    uint32_t a = m[0], b = m[1], c = m[2], d = m[3];
    __m128i first0, first1, second0 = _mm_setzero_si128(), second1 = _mm_setzero_si128();
    sha256_ni_load(h, &first0, &first1);
    if (pair) sha256_ni_load(g, &second0, &second1);
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i first_abef = first0, first_cdgh = first1, second_abef = second0, second_cdgh = second1;
        __m128i message[4];
        sha256_ni_message(data, message);
        uint32_t x[16];
        for (int i = 0; i < 16; i++) x[i] = load_le32(data + 4 * i);
        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        // Four SHA-256 rounds and four MD5 steps at a time.
        _Pragma("GCC unroll 16") for (int step = 0; step < 16; step++) {
            const __m128i words = sha256_ni_words(message, step);
            const __m128i high = _mm_shuffle_epi32(words, 0x0E);
            first1 = _mm_sha256rnds2_epu32(first1, first0, words);
            if (pair) second1 = _mm_sha256rnds2_epu32(second1, second0, words);
            first0 = _mm_sha256rnds2_epu32(first0, first1, high);
            if (pair) second0 = _mm_sha256rnds2_epu32(second0, second1, high);
            MD5_FOUR_STEPS(4 * step, a, b, c, d, x)
        }
        a += a0;
        b += b0;
        c += c0;
        d += d0;
        first0 = _mm_add_epi32(first0, first_abef);
        first1 = _mm_add_epi32(first1, first_cdgh);
        if (pair) {
            second0 = _mm_add_epi32(second0, second_abef);
            second1 = _mm_add_epi32(second1, second_cdgh);
        }
    }
    m[0] = a;
    m[1] = b;
    m[2] = c;
    m[3] = d;
    sha256_ni_store(first0, first1, h);
    if (pair) sha256_ni_store(second0, second1, g);
}

SHA256_NI_TARGET static void md5_sha256_blocks_ni_one(uint32_t m[4], uint32_t h[8], const uint8_t *data, size_t blocks) {
    md5_sha256_blocks_ni_body(m, h, NULL, 0, data, blocks);
}

SHA256_NI_TARGET static void md5_sha256_blocks_ni_pair(uint32_t m[4], uint32_t h[8], uint32_t g[8], const uint8_t *data, size_t blocks) {
    md5_sha256_blocks_ni_body(m, h, g, 1, data, blocks);
}

/// Whole blocks into an MD5 state and one or two SHA-256 states: in one pass with SHA-NI; 0 when
/// the CPU lacks it (nothing hashed: the caller hashes each apart).
static int md5_sha256_blocks(uint32_t m[4], uint32_t h[8], uint32_t *g, const uint8_t *data, size_t blocks) {
    if (!sha256_ni_available()) return 0;
    if (g) {
        md5_sha256_blocks_ni_pair(m, h, g, data, blocks);
    } else {
        md5_sha256_blocks_ni_one(m, h, data, blocks);
    }
    return 1;
}

static void sha256_blocks_pair(uint32_t h[8], uint32_t g[8], const uint8_t *data, size_t blocks) {
    if (sha256_ni_available()) {
        sha256_blocks_ni_pair(h, g, data, blocks);
    } else {
        sha256_blocks_scalar(h, data, blocks);
        sha256_blocks_scalar(g, data, blocks);
    }
}

static void sha256_blocks_one(uint32_t h[8], const uint8_t *data, size_t blocks) {
    if (sha256_ni_available()) {
        sha256_blocks_ni(h, data, blocks);
    } else {
        sha256_blocks_scalar(h, data, blocks);
    }
}

// Σ and σ as three rotations (or shifts) combined by one three-input XOR (truth table 0x96).
#define SHA256_XOR3(x, y, z) _mm512_ternarylogic_epi32(x, y, z, 0x96)
#define SHA256_CHOICE 0xCA   /* (e & f) | (~e & g) */
#define SHA256_MAJORITY 0xE8 /* (a & b) | (a & c) | (b & c) */

SHA256_LANES_TARGET void sha256_lanes_blocks(sha256_lanes_state *state, const uint8_t *const data[SHA256_LANES], size_t blocks) {
    static const uint8_t idle[64];
    const __m512i odd_bytes = _mm512_set1_epi32((int)0xff00ff00);
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
        transpose16(w);
        // Big-endian words (AVX-512F has no byte shuffle): bytes 3 and 1 from a right rotation by
        // 8, bytes 2 and 0 from a left rotation by 8.
        for (int i = 0; i < 16; i++) {
            w[i] = _mm512_ternarylogic_epi32(_mm512_ror_epi32(w[i], 8), _mm512_rol_epi32(w[i], 8), odd_bytes, 0xE4);
        }
        __m512i a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        _Pragma("GCC unroll 64") for (int i = 0; i < 64; i++) {
            if (i >= 16) {
                const __m512i w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15];
                const __m512i s0 = SHA256_XOR3(_mm512_ror_epi32(w15, 7), _mm512_ror_epi32(w15, 18), _mm512_srli_epi32(w15, 3));
                const __m512i s1 = SHA256_XOR3(_mm512_ror_epi32(w2, 17), _mm512_ror_epi32(w2, 19), _mm512_srli_epi32(w2, 10));
                w[i & 15] = _mm512_add_epi32(_mm512_add_epi32(w[i & 15], s0), _mm512_add_epi32(w[(i - 7) & 15], s1));
            }
            // k + constant + word does not wait for e: only Σ1, the choice and two adds do.
            const __m512i early = _mm512_add_epi32(k, _mm512_add_epi32(w[i & 15], _mm512_set1_epi32((int)sha256_constants[i])));
            const __m512i s1 = SHA256_XOR3(_mm512_ror_epi32(e, 6), _mm512_ror_epi32(e, 11), _mm512_ror_epi32(e, 25));
            const __m512i t1 = _mm512_add_epi32(early, _mm512_add_epi32(s1, _mm512_ternarylogic_epi32(e, f, g, SHA256_CHOICE)));
            const __m512i s0 = SHA256_XOR3(_mm512_ror_epi32(a, 2), _mm512_ror_epi32(a, 13), _mm512_ror_epi32(a, 22));
            const __m512i t2 = _mm512_add_epi32(s0, _mm512_ternarylogic_epi32(a, b, c, SHA256_MAJORITY));
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

int sha256_stream_pairs_available(void) { return 0; }

static int md5_sha256_blocks(uint32_t m[4], uint32_t h[8], uint32_t *g, const uint8_t *data, size_t blocks) {
    (void)m, (void)h, (void)g, (void)data, (void)blocks;
    return 0;
}

static void sha256_blocks_pair(uint32_t h[8], uint32_t g[8], const uint8_t *data, size_t blocks) {
    sha256_blocks_scalar(h, data, blocks);
    sha256_blocks_scalar(g, data, blocks);
}

static void sha256_blocks_one(uint32_t h[8], const uint8_t *data, size_t blocks) { sha256_blocks_scalar(h, data, blocks); }

void sha256_lanes_blocks(sha256_lanes_state *state, const uint8_t *const data[SHA256_LANES], size_t blocks) {
    // Never called where sha256_lanes_available() is 0; kept correct all the same.
    for (int l = 0; l < SHA256_LANES; l++) {
        if (!data[l]) continue;
        uint32_t h[8];
        for (int w = 0; w < 8; w++) h[w] = state->words[w][l];
        sha256_blocks_scalar(h, data[l], blocks);
        for (int w = 0; w < 8; w++) state->words[w][l] = h[w];
    }
}

#endif

void sha256_lanes_blocks_one(sha256_lanes_state *state, int lane, const uint8_t *data, size_t blocks) {
    uint32_t h[8];
    for (int w = 0; w < 8; w++) h[w] = state->words[w][lane];
    sha256_blocks_one(h, data, blocks);
    for (int w = 0; w < 8; w++) state->words[w][lane] = h[w];
}

void sha256_stream_update(sha256_stream *stream, const uint8_t *data, size_t length) {
    block_buffer_update(stream->words, stream->buffer, &stream->buffered, &stream->length, data, length, sha256_blocks_one);
}

void sha256_stream_update_pair(sha256_stream *first, sha256_stream *second, const uint8_t *data, size_t length) {
    // Bytes up to the next block boundary, when the two stand at different places in a block, or
    // when a partial block is buffered, go one stream at a time.
    if (first->buffered != second->buffered) {
        sha256_stream_update(first, data, length);
        sha256_stream_update(second, data, length);
        return;
    }
    if (first->buffered) {
        const size_t take = 64 - first->buffered < length ? 64 - first->buffered : length;
        sha256_stream_update(first, data, take);
        sha256_stream_update(second, data, take);
        data += take;
        length -= take;
    }
    if (length >= 64) {
        const size_t blocks = length / 64;
        sha256_blocks_pair(first->words, second->words, data, blocks);
        first->length += blocks * 64;
        second->length += blocks * 64;
        data += blocks * 64;
        length &= 63;
    }
    if (length) {
        sha256_stream_update(first, data, length);
        sha256_stream_update(second, data, length);
    }
}

/// Adds `length` bytes to `md5` and to `first` and `second` (if non-null) one stream at a time.
static void md5_sha256_apart(md5_stream *md5, sha256_stream *first, sha256_stream *second, const uint8_t *data, size_t length) {
    md5_stream_update(md5, data, length);
    if (second) {
        sha256_stream_update_pair(first, second, data, length);
    } else {
        sha256_stream_update(first, data, length);
    }
}

void sha256_stream_update_with_md5(md5_stream *md5, sha256_stream *first, sha256_stream *second, const uint8_t *data, size_t length) {
    // Bytes up to the next block boundary, when the streams stand at different places in a block,
    // or when a partial block is buffered, go one stream at a time.
    if (md5->buffered != first->buffered || (second && second->buffered != first->buffered)) {
        md5_sha256_apart(md5, first, second, data, length);
        return;
    }
    if (first->buffered) {
        const size_t take = 64 - first->buffered < length ? 64 - first->buffered : length;
        md5_sha256_apart(md5, first, second, data, take);
        data += take;
        length -= take;
    }
    if (length >= 64) {
        const size_t blocks = length / 64;
        if (md5_sha256_blocks(md5->words, first->words, second ? second->words : NULL, data, blocks)) {
            md5->length += blocks * 64;
            first->length += blocks * 64;
            if (second) second->length += blocks * 64;
            data += blocks * 64;
            length &= 63;
        }
    }
    if (length) md5_sha256_apart(md5, first, second, data, length);
}

void sha256_stream_finish(const sha256_stream *stream, uint8_t digest[32]) {
    uint32_t h[8];
    memcpy(h, stream->words, sizeof h);
    sha256_pad(h, stream->buffer, stream->buffered, stream->length, sha256_blocks_one);
    store_digest(h, digest);
}
