// The buffering both one-stream hashes (md5_stream, sha256_stream) share: whole 64-byte blocks go
// to the compression function where they lie, the bytes short of a block wait in the stream's
// buffer. Internal to CHashLanes.
#ifndef WEBARC_BLOCK_BUFFER_H
#define WEBARC_BLOCK_BUFFER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// Adds `length` bytes at `data` to a stream whose chaining state is `words`, with `*buffered`
/// bytes waiting in `buffer` and `*total` bytes so far; `blocks` compresses whole blocks.
static inline void block_buffer_update(uint32_t *words, uint8_t buffer[64], size_t *buffered, uint64_t *total,
                                       const uint8_t *data, size_t length,
                                       void (*blocks)(uint32_t *, const uint8_t *, size_t)) {
    *total += length;
    if (*buffered) {
        size_t take = 64 - *buffered < length ? 64 - *buffered : length;
        memcpy(buffer + *buffered, data, take);
        *buffered += take;
        data += take;
        length -= take;
        if (*buffered < 64) return;
        blocks(words, buffer, 1);
        *buffered = 0;
    }
    if (length >= 64) {
        blocks(words, data, length / 64);
        data += length & ~(size_t)63;
        length &= 63;
    }
    if (length) {
        memcpy(buffer, data, length);
        *buffered = length;
    }
}

#endif
