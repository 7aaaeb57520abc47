#ifndef WEBARC_CZLIB_SHIM_H
#define WEBARC_CZLIB_SHIM_H
#include <zlib.h>
#endif
