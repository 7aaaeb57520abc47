#ifndef WEBARC_CMALLOC_SHIM_H
#define WEBARC_CMALLOC_SHIM_H
// glibc's allocator tuning (mallopt), which Swift's Glibc module does not import.
#if defined(__linux__)
#include <malloc.h>
#endif
#endif
