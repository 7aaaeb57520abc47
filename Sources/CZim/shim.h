#ifndef WEBARC_CZIM_SHIM_H
#define WEBARC_CZIM_SHIM_H
// libzim has a C++ API only, which CZimShim includes. This module links libzim, lets pkg-config
// find it, and names the Debian package (libzim-dev) when it is missing.
#endif
