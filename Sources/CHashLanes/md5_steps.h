// MD5's constants and its scalar compression function (RFC 1321), shared by the lanes of
// md5_lanes.c and the one-pass MD5 and SHA-256 of sha256_lanes.c. Internal to CHashLanes.
#ifndef WEBARC_MD5_STEPS_H
#define WEBARC_MD5_STEPS_H

#include <stddef.h>
#include <stdint.h>

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
static const uint32_t md5_initial[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

static inline uint32_t rotate_left(uint32_t value, int count) { return (value << count) | (value >> (32 - count)); }

static inline uint32_t load_le32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

// One step of the unrolled scalar block. The message word and constant are added first and the
// round function last, so that only the function, one add, the rotation and the last add wait for
// b (the form of OpenSSL's md5-x86_64, faster than the naive order). G adds its two halves
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

/// Steps i … i + 3 of MD5's 64 (i a multiple of 4, known when unrolled) on a, b, c, d, with the
/// block's sixteen words x.
#define MD5_FOUR_STEPS(i, a, b, c, d, x)                                                                \
    if ((i) < 16) {                                                                                      \
        MD5_SF(a, b, c, d, x[(i)], md5_constants[(i)], 7)                                                \
        MD5_SF(d, a, b, c, x[(i) + 1], md5_constants[(i) + 1], 12)                                       \
        MD5_SF(c, d, a, b, x[(i) + 2], md5_constants[(i) + 2], 17)                                       \
        MD5_SF(b, c, d, a, x[(i) + 3], md5_constants[(i) + 3], 22)                                       \
    } else if ((i) < 32) {                                                                               \
        MD5_SG(a, b, c, d, x[(5 * (i) + 1) & 15], md5_constants[(i)], 5)                                 \
        MD5_SG(d, a, b, c, x[(5 * ((i) + 1) + 1) & 15], md5_constants[(i) + 1], 9)                       \
        MD5_SG(c, d, a, b, x[(5 * ((i) + 2) + 1) & 15], md5_constants[(i) + 2], 14)                      \
        MD5_SG(b, c, d, a, x[(5 * ((i) + 3) + 1) & 15], md5_constants[(i) + 3], 20)                      \
    } else if ((i) < 48) {                                                                               \
        MD5_SH(a, b, c, d, x[(3 * (i) + 5) & 15], md5_constants[(i)], 4)                                 \
        MD5_SH(d, a, b, c, x[(3 * ((i) + 1) + 5) & 15], md5_constants[(i) + 1], 11)                      \
        MD5_SH(c, d, a, b, x[(3 * ((i) + 2) + 5) & 15], md5_constants[(i) + 2], 16)                      \
        MD5_SH(b, c, d, a, x[(3 * ((i) + 3) + 5) & 15], md5_constants[(i) + 3], 23)                      \
    } else {                                                                                             \
        MD5_SI(a, b, c, d, x[(7 * (i)) & 15], md5_constants[(i)], 6)                                     \
        MD5_SI(d, a, b, c, x[(7 * ((i) + 1)) & 15], md5_constants[(i) + 1], 10)                          \
        MD5_SI(c, d, a, b, x[(7 * ((i) + 2)) & 15], md5_constants[(i) + 2], 15)                          \
        MD5_SI(b, c, d, a, x[(7 * ((i) + 3)) & 15], md5_constants[(i) + 3], 21)                          \
    }

/// `blocks` 64-byte blocks into one chaining state, unrolled scalar code.
static inline void md5_blocks_unrolled(uint32_t h[4], const uint8_t *data, size_t blocks) {
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (size_t block = 0; block < blocks; block++, data += 64) {
        uint32_t x[16];
        for (int i = 0; i < 16; i++) x[i] = load_le32(data + 4 * i);
        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        _Pragma("GCC unroll 16") for (int i = 0; i < 64; i += 4) { MD5_FOUR_STEPS(i, a, b, c, d, x) }
        a += a0;
        b += b0;
        c += c0;
        d += d0;
    }
    h[0] = a;
    h[1] = b;
    h[2] = c;
    h[3] = d;
}

#endif
