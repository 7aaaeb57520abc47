#ifndef WEBARC_SHA256_LANES_H
#define WEBARC_SHA256_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "md5_lanes.h"

/// Number of independent SHA-256 computations one call of sha256_lanes_blocks advances.
#define SHA256_LANES 16

/// Sixteen SHA-256 chaining states side by side: word w (A … H) of lane l is words[w][l].
typedef struct {
    uint32_t words[8][SHA256_LANES];
} sha256_lanes_state;

/// One SHA-256 message hashed as a single stream: its chaining state, the bytes short of a block,
/// and the message length so far.
typedef struct {
    uint32_t words[8];
    uint8_t buffer[64];
    size_t buffered;
    uint64_t length;
} sha256_stream;

/// 1 when this CPU runs the 16-lane kernel (AVX-512F), 0 otherwise (then
/// sha256_lanes_blocks must not be called).
int sha256_lanes_available(void);

/// Sets lane `lane` to SHA-256's initial state.
void sha256_lanes_reset(sha256_lanes_state *state, int lane);

/// Runs SHA-256's compression function over `blocks` 64-byte blocks of each lane: lane l reads
/// data[l], data[l] + 64, …; a lane whose pointer is NULL is left unchanged.
void sha256_lanes_blocks(sha256_lanes_state *state, const uint8_t *const data[SHA256_LANES], size_t blocks);

/// Runs SHA-256's compression function over `blocks` 64-byte blocks at `data` for lane `lane`
/// alone, one stream (SHA-NI where the CPU has it): for a lane left alone, where the sixteen-lane
/// kernel would do sixteen lanes' work for one.
void sha256_lanes_blocks_one(sha256_lanes_state *state, int lane, const uint8_t *data, size_t blocks);

/// Finishes lane `lane`: pads its last `tail_length` (< 64) bytes at `tail` for a message of
/// `total_length` bytes, writes the 32-byte digest to `digest`. The state is left as it was.
void sha256_lanes_finish(const sha256_lanes_state *state, int lane, const uint8_t *tail, size_t tail_length,
                         uint64_t total_length, uint8_t digest[32]);

/// Starts `stream` as a new message.
void sha256_stream_init(sha256_stream *stream);

/// Starts `stream` where lane `lane` stands after `length` bytes (a whole number of blocks), so
/// that a message begun in the lanes goes on as one stream.
void sha256_stream_init_from_lane(sha256_stream *stream, const sha256_lanes_state *state, int lane, uint64_t length);

/// Adds `length` bytes at `data` to `stream` (SHA-NI where the CPU has it, portable code otherwise).
void sha256_stream_update(sha256_stream *stream, const uint8_t *data, size_t length);

/// 1 when sha256_stream_update_pair hashes both streams in one pass (SHA-NI), 0 when it runs the
/// portable code twice.
int sha256_stream_pairs_available(void);

/// Adds the same `length` bytes at `data` to two streams (two messages that share them, such as
/// a chunk and its body): with SHA-NI, the whole blocks of both in one pass, for about the cost of
/// one. Each ends as sha256_stream_update would leave it.
void sha256_stream_update_pair(sha256_stream *first, sha256_stream *second, const uint8_t *data, size_t length);

/// Adds the same `length` bytes at `data` to an MD5 message and to one SHA-256 message, or two
/// (`second` non-null: a chunk and its body): with SHA-NI, the whole blocks of all in one pass,
/// for about the cost of the MD5 alone. Each ends as its own update would leave it.
void sha256_stream_update_with_md5(md5_stream *md5, sha256_stream *first, sha256_stream *second, const uint8_t *data,
                                   size_t length);

/// Writes the digest of `stream`'s message to `digest`; the stream is left as it was.
void sha256_stream_finish(const sha256_stream *stream, uint8_t digest[32]);

#endif
