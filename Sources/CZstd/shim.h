#ifndef WEBARC_CZSTD_SHIM_H
#define WEBARC_CZSTD_SHIM_H
#include <zstd.h>
#endif
