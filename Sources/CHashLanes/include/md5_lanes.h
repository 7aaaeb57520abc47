#ifndef WEBARC_MD5_LANES_H
#define WEBARC_MD5_LANES_H

#include <stddef.h>
#include <stdint.h>

/// Number of independent MD5 computations one call of md5_lanes_blocks advances.
#define MD5_LANES 16

/// Sixteen MD5 chaining states side by side: word w (A, B, C, D) of lane l is words[w][l].
typedef struct {
    uint32_t words[4][MD5_LANES];
} md5_lanes_state;

/// 1 when this CPU runs the 16-lane kernel (AVX-512F), 0 otherwise (then nothing here may be called
/// except md5_lanes_reset and md5_lanes_finish).
int md5_lanes_available(void);

/// Sets lane `lane` to MD5's initial state.
void md5_lanes_reset(md5_lanes_state *state, int lane);

/// Runs MD5's compression function over `blocks` 64-byte blocks of each lane: lane l reads
/// data[l], data[l] + 64, …; a lane whose pointer is NULL is left unchanged.
void md5_lanes_blocks(md5_lanes_state *state, const uint8_t *const data[MD5_LANES], size_t blocks);

/// Runs MD5's compression function over `blocks` 64-byte blocks at `data` for lane `lane` alone,
/// with scalar code: for a lane left alone at the end, where the sixteen-lane kernel would do
/// sixteen lanes' work for one.
void md5_lanes_blocks_one(md5_lanes_state *state, int lane, const uint8_t *data, size_t blocks);

/// Finishes lane `lane`: pads its last `tail_length` (< 64) bytes at `tail` for a message of
/// `total_length` bytes (scalar code), writes the 16-byte digest to `digest`.
void md5_lanes_finish(const md5_lanes_state *state, int lane, const uint8_t *tail, size_t tail_length,
                      uint64_t total_length, uint8_t digest[16]);

/// One MD5 message hashed as its bytes arrive, with scalar code.
typedef struct {
    uint32_t words[4];
    uint8_t buffer[64];
    size_t buffered;
    uint64_t length;
} md5_stream;

/// Starts `stream` as a new message.
void md5_stream_init(md5_stream *stream);

/// Adds `length` bytes at `data` to `stream`.
void md5_stream_update(md5_stream *stream, const uint8_t *data, size_t length);

/// Writes the digest of `stream`'s message to `digest`; the stream is left as it was.
void md5_stream_finish(const md5_stream *stream, uint8_t digest[16]);

#endif
