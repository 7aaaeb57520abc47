#ifndef WEBARC_CWRITEBACK_SHIM_H
#define WEBARC_CWRITEBACK_SHIM_H
// Linux's sync_file_range, which Swift's Glibc module does not import (glibc declares it only
// under _GNU_SOURCE): the archive writer starts writing its body data to disk while it packs, so
// that the fsync before the rename has little left to wait for.
#if defined(__linux__)
#include <stdint.h>

int sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags);

/// SYNC_FILE_RANGE_WRITE: start write-out of the range's dirty pages, without waiting for it.
#define WEBARC_SYNC_FILE_RANGE_WRITE 2u
#endif
#endif
