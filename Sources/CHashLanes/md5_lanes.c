// Sixteen MD5 computations at once, one per 32-bit lane of an AVX-512 register (RFC 1321).
// MD5 cannot be sped up inside one message (each step needs the last), but the bodies of an
// archive are independent messages: hashing sixteen side by side does sixteen times the work
// per instruction. The scalar code pads and finishes each message.
#include "md5_lanes.h"
#include "md5_steps.h"
#include "block_buffer.h"

#include <string.h>

void md5_lanes_blocks_one(md5_lanes_state *state, int lane, const uint8_t *data, size_t blocks) {
    uint32_t h[4];
    for (int w = 0; w < 4; w++) h[w] = state->words[w][lane];
    md5_blocks_unrolled(h, data, blocks);
    for (int w = 0; w < 4; w++) state->words[w][lane] = h[w];
}

void md5_lanes_reset(md5_lanes_state *state, int lane) {
    for (int w = 0; w < 4; w++) state->words[w][lane] = md5_initial[w];
}

/// Pads the last `tail_length` (< 64) bytes of a message of `total_length` bytes into the chaining
/// state `h` (a copy) and writes the digest.
static void md5_finish_state(uint32_t h[4], const uint8_t *tail, size_t tail_length, uint64_t total_length, uint8_t digest[16]) {
    uint8_t last[128] = {0};
    if (tail_length) memcpy(last, tail, tail_length);
    last[tail_length] = 0x80;
    size_t length = tail_length < 56 ? 64 : 128;
    uint64_t bits = total_length << 3;
    for (int i = 0; i < 8; i++) last[length - 8 + i] = (uint8_t)(bits >> (8 * i));
    md5_blocks_unrolled(h, last, length / 64);
    for (int w = 0; w < 4; w++) {
        for (int i = 0; i < 4; i++) digest[4 * w + i] = (uint8_t)(h[w] >> (8 * i));
    }
}

void md5_lanes_finish(const md5_lanes_state *state, int lane, const uint8_t *tail, size_t tail_length,
                      uint64_t total_length, uint8_t digest[16]) {
    uint32_t h[4];
    for (int w = 0; w < 4; w++) h[w] = state->words[w][lane];
    md5_finish_state(h, tail, tail_length, total_length, digest);
}

void md5_stream_init(md5_stream *stream) {
    memcpy(stream->words, md5_initial, sizeof stream->words);
    stream->buffered = 0;
    stream->length = 0;
}

void md5_stream_update(md5_stream *stream, const uint8_t *data, size_t length) {
    block_buffer_update(stream->words, stream->buffer, &stream->buffered, &stream->length, data, length, md5_blocks_unrolled);
}

void md5_stream_finish(const md5_stream *stream, uint8_t digest[16]) {
    uint32_t h[4];
    memcpy(h, stream->words, sizeof h);
    md5_finish_state(h, stream->buffer, stream->buffered, stream->length, digest);
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
        md5_blocks_unrolled(h, data[l], blocks);
        for (int w = 0; w < 4; w++) state->words[w][l] = h[w];
    }
}

#endif
