// Shared by the AVX-512 kernels of md5_lanes.c and sha256_lanes.c; included after
// <immintrin.h>, with HASH_LANES_TARGET defined as the kernels' target attribute.
#ifndef WEBARC_TRANSPOSE16_H
#define WEBARC_TRANSPOSE16_H

/// Transposes sixteen rows of sixteen 32-bit words in place: afterwards rows[k] holds word k of
/// every original row, row r in lane r.
HASH_LANES_TARGET static inline void transpose16(__m512i rows[16]) {
    __m512i t[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(rows[i], rows[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(rows[i], rows[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        rows[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        rows[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        rows[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        rows[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_shuffle_i32x4(rows[i], rows[i + 4], 0x88);
        t[i + 4] = _mm512_shuffle_i32x4(rows[i], rows[i + 4], 0xdd);
        t[i + 8] = _mm512_shuffle_i32x4(rows[i + 8], rows[i + 12], 0x88);
        t[i + 12] = _mm512_shuffle_i32x4(rows[i + 8], rows[i + 12], 0xdd);
    }
    for (int i = 0; i < 8; i++) {
        rows[i] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0x88);
        rows[i + 8] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0xdd);
    }
}

#endif
