#ifndef WEBARC_CLZ4_SHIM_H
#define WEBARC_CLZ4_SHIM_H
#include <lz4.h>
#include <lz4hc.h>
#endif
