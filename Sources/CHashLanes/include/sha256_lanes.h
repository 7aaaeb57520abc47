#ifndef WEBARC_SHA256_LANES_H
#define WEBARC_SHA256_LANES_H

#include <stddef.h>
#include <stdint.h>

/// Number of independent SHA-256 computations one call of sha256_lanes_blocks advances.
#define SHA256_LANES 16

/// Sixteen SHA-256 chaining states side by side: word w (A to H) of lane l is words[w][l].
typedef struct {
    uint32_t words[8][SHA256_LANES];
} sha256_lanes_state;

/// 1 when this CPU runs the 16-lane kernel (AVX-512F and BW), 0 otherwise (then nothing here may be
/// called except sha256_lanes_reset and sha256_lanes_finish).
int sha256_lanes_available(void);

/// Sets lane `lane` to SHA-256's initial state.
void sha256_lanes_reset(sha256_lanes_state *state, int lane);

/// Runs SHA-256's compression function over `blocks` 64-byte blocks of each lane: lane l reads
/// data[l], data[l] + 64, …; a lane whose pointer is NULL is left unchanged.
void sha256_lanes_blocks(sha256_lanes_state *state, const uint8_t *const data[SHA256_LANES], size_t blocks);

/// Finishes lane `lane`: pads its last `tail_length` (< 64) bytes at `tail` for a message of
/// `total_length` bytes (scalar code), writes the 32-byte digest to `digest`.
void sha256_lanes_finish(const sha256_lanes_state *state, int lane, const uint8_t *tail, size_t tail_length,
                         uint64_t total_length, uint8_t digest[32]);

#endif
