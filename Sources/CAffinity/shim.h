#ifndef WEBARC_CAFFINITY_SHIM_H
#define WEBARC_CAFFINITY_SHIM_H
// Linux's CPU affinity of the calling thread, which Swift's Glibc module does not import (glibc
// declares sched_getaffinity and sched_setaffinity only under _GNU_SOURCE): pack's workers each
// keep to a core of their own (see PackPipeline).
#if defined(__linux__)
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Reads the calling thread's CPU mask into `words` 64-bit words (CPU n is bit n % 64 of word
/// n / 64); 0 on success, -1 and errno otherwise.
static inline int webarc_thread_affinity(uint64_t *mask, size_t words) {
    return syscall(SYS_sched_getaffinity, 0, words * sizeof(uint64_t), mask) < 0 ? -1 : 0;
}

/// Sets the calling thread's CPU mask from `words` 64-bit words; 0 on success, -1 and errno otherwise.
static inline int webarc_set_thread_affinity(const uint64_t *mask, size_t words) {
    return syscall(SYS_sched_setaffinity, 0, words * sizeof(uint64_t), mask) < 0 ? -1 : 0;
}
#endif
#endif
