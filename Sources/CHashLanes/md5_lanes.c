// Sixteen MD5 computations at once, one per 32-bit lane of an AVX-512 register (RFC 1321).
// MD5 cannot be sped up inside one message (each step needs the last), but the bodies of an
// archive are independent messages: hashing sixteen side by side does sixteen times the work
// per instruction. The scalar code pads and finishes each message.
#include "md5_lanes.h"

#include <string.h>

static const uint32_t md5_constants[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
static const int md5_shifts[64] = {
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};
static const uint32_t md5_initial[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

/// Message word used by step i.
static inline int md5_word(int i) {
    switch (i >> 4) {
    case 0: return i;
    case 1: return (5 * i + 1) & 15;
    case 2: return (3 * i + 5) & 15;
    default: return (7 * i) & 15;
    }
}

static inline uint32_t rotate_left(uint32_t value, int count) { return (value << count) | (value >> (32 - count)); }

static inline uint32_t load_le32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/// One 64-byte block into one chaining state, scalar (for the last blocks of a message).
static void md5_block_scalar(uint32_t h[4], const uint8_t *block) {
    uint32_t x[16];
    for (int i = 0; i < 16; i++) x[i] = load_le32(block + 4 * i);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        switch (i >> 4) {
        case 0: f = (b & c) | (~b & d); break;
        case 1: f = (b & d) | (c & ~d); break;
        case 2: f = b ^ c ^ d; break;
        default: f = c ^ (b | ~d); break;
        }
        uint32_t next = b + rotate_left(a + f + x[md5_word(i)] + md5_constants[i], md5_shifts[i]);
        a = d;
        d = c;
        c = b;
        b = next;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

// One step of the unrolled scalar block. The message word and constant are added first and the
// round function last, so that only the function, one add, the rotation and the last add wait for
// b (the form of OpenSSL's md5-x86_64; about 1.25x the naive order here). G adds its two halves
// separately: the one without b is ready early.
#define MD5_SF(a, b, c, d, word, constant, shift)                                                       \
    a += (word) + (uint32_t)(constant);                                                                  \
    a += (((c) ^ (d)) & (b)) ^ (d);                                                                      \
    a = rotate_left(a, shift) + (b);
#define MD5_SG(a, b, c, d, word, constant, shift)                                                       \
    a += (word) + (uint32_t)(constant);                                                                  \
    a += (c) & ~(d);                                                                                     \
    a += (b) & (d);                                                                                      \
    a = rotate_left(a, shift) + (b);
#define MD5_SH(a, b, c, d, word, constant, shift)                                                       \
    a += (word) + (uint32_t)(constant);                                                                  \
    a += ((c) ^ (d)) ^ (b);                                                                              \
    a = rotate_left(a, shift) + (b);
#define MD5_SI(a, b, c, d, word, constant, shift)                                                       \
    a += (word) + (uint32_t)(constant);                                                                  \
    a += (c) ^ ((b) | ~(d));                                                                             \
    a = rotate_left(a, shift) + (b);

void md5_lanes_blocks_one(md5_lanes_state *state, int lane, const uint8_t *data, size_t blocks) {
    uint32_t a = state->words[0][lane], b = state->words[1][lane], c = state->words[2][lane], d = state->words[3][lane];
    for (size_t block = 0; block < blocks; block++, data += 64) {
        uint32_t x[16];
        for (int i = 0; i < 16; i++) x[i] = load_le32(data + 4 * i);
        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        for (int i = 0; i < 16; i += 4) {
            MD5_SF(a, b, c, d, x[i], md5_constants[i], 7)
            MD5_SF(d, a, b, c, x[i + 1], md5_constants[i + 1], 12)
            MD5_SF(c, d, a, b, x[i + 2], md5_constants[i + 2], 17)
            MD5_SF(b, c, d, a, x[i + 3], md5_constants[i + 3], 22)
        }
        for (int i = 16; i < 32; i += 4) {
            MD5_SG(a, b, c, d, x[(5 * i + 1) & 15], md5_constants[i], 5)
            MD5_SG(d, a, b, c, x[(5 * (i + 1) + 1) & 15], md5_constants[i + 1], 9)
            MD5_SG(c, d, a, b, x[(5 * (i + 2) + 1) & 15], md5_constants[i + 2], 14)
            MD5_SG(b, c, d, a, x[(5 * (i + 3) + 1) & 15], md5_constants[i + 3], 20)
        }
        for (int i = 32; i < 48; i += 4) {
            MD5_SH(a, b, c, d, x[(3 * i + 5) & 15], md5_constants[i], 4)
            MD5_SH(d, a, b, c, x[(3 * (i + 1) + 5) & 15], md5_constants[i + 1], 11)
            MD5_SH(c, d, a, b, x[(3 * (i + 2) + 5) & 15], md5_constants[i + 2], 16)
            MD5_SH(b, c, d, a, x[(3 * (i + 3) + 5) & 15], md5_constants[i + 3], 23)
        }
        for (int i = 48; i < 64; i += 4) {
            MD5_SI(a, b, c, d, x[(7 * i) & 15], md5_constants[i], 6)
            MD5_SI(d, a, b, c, x[(7 * (i + 1)) & 15], md5_constants[i + 1], 10)
            MD5_SI(c, d, a, b, x[(7 * (i + 2)) & 15], md5_constants[i + 2], 15)
            MD5_SI(b, c, d, a, x[(7 * (i + 3)) & 15], md5_constants[i + 3], 21)
        }
        a += a0;
        b += b0;
        c += c0;
        d += d0;
    }
    state->words[0][lane] = a;
    state->words[1][lane] = b;
    state->words[2][lane] = c;
    state->words[3][lane] = d;
}

void md5_lanes_reset(md5_lanes_state *state, int lane) {
    for (int w = 0; w < 4; w++) state->words[w][lane] = md5_initial[w];
}

void md5_lanes_finish(const md5_lanes_state *state, int lane, const uint8_t *tail, size_t tail_length,
                      uint64_t total_length, uint8_t digest[16]) {
    uint32_t h[4];
    for (int w = 0; w < 4; w++) h[w] = state->words[w][lane];
    uint8_t last[128] = {0};
    if (tail_length) memcpy(last, tail, tail_length);
    last[tail_length] = 0x80;
    size_t length = tail_length < 56 ? 64 : 128;
    uint64_t bits = total_length << 3;
    for (int i = 0; i < 8; i++) last[length - 8 + i] = (uint8_t)(bits >> (8 * i));
    md5_block_scalar(h, last);
    if (length == 128) md5_block_scalar(h, last + 64);
    for (int w = 0; w < 4; w++) {
        for (int i = 0; i < 4; i++) digest[4 * w + i] = (uint8_t)(h[w] >> (8 * i));
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

#define HASH_LANES_TARGET __attribute__((target("avx512f")))
#define MD5_LANES_TARGET HASH_LANES_TARGET
#include "transpose16.h"

int md5_lanes_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? 1 : 0;
}

// The four round functions as AVX-512 three-input truth tables (bit (b<<2 | c<<1 | d)).
#define MD5_F 0xCA /* (b & c) | (~b & d) */
#define MD5_G 0xE4 /* (b & d) | (c & ~d) */
#define MD5_H 0x96 /* b ^ c ^ d */
#define MD5_I 0x39 /* c ^ (b | ~d) */

// a + word + constant does not wait for b, c and d: only the table, one add, the rotation and the
// last add are on the critical path.
#define MD5_STEP(table, a, b, c, d, word, constant, shift)                                              \
    do {                                                                                                 \
        __m512i sum = _mm512_add_epi32(a, _mm512_add_epi32(word, _mm512_set1_epi32((int)(constant))));   \
        sum = _mm512_add_epi32(sum, _mm512_ternarylogic_epi32(b, c, d, table));                          \
        a = _mm512_add_epi32(b, _mm512_rol_epi32(sum, shift));                                           \
    } while (0)

MD5_LANES_TARGET void md5_lanes_blocks(md5_lanes_state *state, const uint8_t *const data[MD5_LANES], size_t blocks) {
    static const uint8_t idle[64];
    const uint8_t *pointers[MD5_LANES];
    uint32_t stride[MD5_LANES];
    __mmask16 active = 0;
    for (int l = 0; l < MD5_LANES; l++) {
        pointers[l] = data[l] ? data[l] : idle;
        stride[l] = data[l] ? 64 : 0;
        if (data[l]) active |= (__mmask16)(1u << l);
    }
    __m512i a = _mm512_loadu_si512(state->words[0]);
    __m512i b = _mm512_loadu_si512(state->words[1]);
    __m512i c = _mm512_loadu_si512(state->words[2]);
    __m512i d = _mm512_loadu_si512(state->words[3]);
    for (size_t block = 0; block < blocks; block++) {
        __m512i x[16];
        for (int l = 0; l < MD5_LANES; l++) {
            x[l] = _mm512_loadu_si512(pointers[l]);
            pointers[l] += stride[l];
        }
        transpose16(x);
        const __m512i a0 = a, b0 = b, c0 = c, d0 = d;
        for (int i = 0; i < 16; i += 4) {
            MD5_STEP(MD5_F, a, b, c, d, x[i], md5_constants[i], 7);
            MD5_STEP(MD5_F, d, a, b, c, x[i + 1], md5_constants[i + 1], 12);
            MD5_STEP(MD5_F, c, d, a, b, x[i + 2], md5_constants[i + 2], 17);
            MD5_STEP(MD5_F, b, c, d, a, x[i + 3], md5_constants[i + 3], 22);
        }
        for (int i = 16; i < 32; i += 4) {
            MD5_STEP(MD5_G, a, b, c, d, x[(5 * i + 1) & 15], md5_constants[i], 5);
            MD5_STEP(MD5_G, d, a, b, c, x[(5 * (i + 1) + 1) & 15], md5_constants[i + 1], 9);
            MD5_STEP(MD5_G, c, d, a, b, x[(5 * (i + 2) + 1) & 15], md5_constants[i + 2], 14);
            MD5_STEP(MD5_G, b, c, d, a, x[(5 * (i + 3) + 1) & 15], md5_constants[i + 3], 20);
        }
        for (int i = 32; i < 48; i += 4) {
            MD5_STEP(MD5_H, a, b, c, d, x[(3 * i + 5) & 15], md5_constants[i], 4);
            MD5_STEP(MD5_H, d, a, b, c, x[(3 * (i + 1) + 5) & 15], md5_constants[i + 1], 11);
            MD5_STEP(MD5_H, c, d, a, b, x[(3 * (i + 2) + 5) & 15], md5_constants[i + 2], 16);
            MD5_STEP(MD5_H, b, c, d, a, x[(3 * (i + 3) + 5) & 15], md5_constants[i + 3], 23);
        }
        for (int i = 48; i < 64; i += 4) {
            MD5_STEP(MD5_I, a, b, c, d, x[(7 * i) & 15], md5_constants[i], 6);
            MD5_STEP(MD5_I, d, a, b, c, x[(7 * (i + 1)) & 15], md5_constants[i + 1], 10);
            MD5_STEP(MD5_I, c, d, a, b, x[(7 * (i + 2)) & 15], md5_constants[i + 2], 15);
            MD5_STEP(MD5_I, b, c, d, a, x[(7 * (i + 3)) & 15], md5_constants[i + 3], 21);
        }
        // Idle lanes keep their state.
        a = _mm512_mask_add_epi32(a0, active, a, a0);
        b = _mm512_mask_add_epi32(b0, active, b, b0);
        c = _mm512_mask_add_epi32(c0, active, c, c0);
        d = _mm512_mask_add_epi32(d0, active, d, d0);
    }
    _mm512_storeu_si512(state->words[0], a);
    _mm512_storeu_si512(state->words[1], b);
    _mm512_storeu_si512(state->words[2], c);
    _mm512_storeu_si512(state->words[3], d);
}

#else

int md5_lanes_available(void) { return 0; }

void md5_lanes_blocks(md5_lanes_state *state, const uint8_t *const data[MD5_LANES], size_t blocks) {
    // Never called where md5_lanes_available() is 0; kept correct all the same.
    for (int l = 0; l < MD5_LANES; l++) {
        if (!data[l]) continue;
        uint32_t h[4];
        for (int w = 0; w < 4; w++) h[w] = state->words[w][l];
        for (size_t block = 0; block < blocks; block++) md5_block_scalar(h, data[l] + 64 * block);
        for (int w = 0; w < 4; w++) state->words[w][l] = h[w];
    }
}

#endif
