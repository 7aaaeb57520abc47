#!/usr/bin/env bash
# Builds a liblz4 and a libzstd of other versions than Debian 12's (1.9.4, 1.5.4) as shared
# libraries, for CrossLibraryApplyTests: it packs and diffs as usual, then applies with
# `LD_LIBRARY_PATH` pointing here, which a `webarc` linking the system's libraries dynamically (as
# debug builds did before the compressors were vendored in Sources/CLZ4 and Sources/CZstd) would
# load: the publisher's archive must still come out. The C sources come from PyPI source
# distributions that bundle them: python-lz4 4.0.2 (lz4 1.9.3) and zstandard 0.25.0 (zstd 1.5.7).
#
# Usage: Tools/other-compressors.sh [DIR]   (default DIR: /var/tmp/webarc-other-compressors)
# Leaves DIR/lib/liblz4.so.1 and DIR/lib/libzstd.so.1, and DIR/lib/VERSIONS naming both; a second
# run with both present does nothing. Needs pip (python3's, or a venv's) reaching PyPI, and cc or clang.
set -euo pipefail

DIR="${1:-/var/tmp/webarc-other-compressors}"
LIB="$DIR/lib"
if [[ -f "$LIB/liblz4.so.1" && -f "$LIB/libzstd.so.1" && -f "$LIB/VERSIONS" ]]; then
    exit 0
fi
# cc, else the clang that ships with Swift (a Swift image need not have gcc).
CC="${CC:-cc}"
command -v "$CC" >/dev/null || CC=clang
command -v "$CC" >/dev/null || { echo "other-compressors: error: no C compiler (cc or clang)" >&2; exit 69; }
mkdir -p "$DIR/src" "$LIB"
cd "$DIR/src"

# pip of the system's python3, else of a venv here (Debian's python3-venv brings one).
PIP=(python3 -m pip)
if ! python3 -m pip --version >/dev/null 2>&1; then
    [[ -x "$DIR/venv/bin/pip" ]] || python3 -m venv "$DIR/venv" >&2 \
        || { echo "other-compressors: error: no pip, and python3 -m venv failed" >&2; exit 69; }
    PIP=("$DIR/venv/bin/pip")
fi
fetch() {
    local spec="$1" file="$2"
    [[ -f "$file" ]] && return 0
    "${PIP[@]}" download --quiet --no-deps --no-binary :all: "$spec" -d . >&2 \
        || { echo "other-compressors: error: pip could not download $spec" >&2; exit 69; }
}
fetch "lz4==4.0.2" lz4-4.0.2.tar.gz
fetch "zstandard==0.25.0" zstandard-0.25.0.tar.gz
rm -rf lz4-4.0.2 zstandard-0.25.0
tar xzf lz4-4.0.2.tar.gz
tar xzf zstandard-0.25.0.tar.gz

lz4=lz4-4.0.2/lz4libs
zstd=zstandard-0.25.0/zstd
version() { sed -n "s/^#define $2 *\([0-9]*\).*/\1/p" "$1" | head -1; }
lz4Version="$(version $lz4/lz4.h LZ4_VERSION_MAJOR).$(version $lz4/lz4.h LZ4_VERSION_MINOR).$(version $lz4/lz4.h LZ4_VERSION_RELEASE)"
zstdVersion="$(version $zstd/zstd.h ZSTD_VERSION_MAJOR).$(version $zstd/zstd.h ZSTD_VERSION_MINOR).$(version $zstd/zstd.h ZSTD_VERSION_RELEASE)"

# The sonames of Debian's packages, so that the dynamic loader takes these in their place.
"$CC" -O2 -fPIC -shared -Wl,-soname,liblz4.so.1 -o "$LIB/liblz4.so.1.tmp" \
    $lz4/lz4.c $lz4/lz4hc.c $lz4/lz4frame.c $lz4/xxhash.c
"$CC" -O2 -fPIC -shared -pthread -Wl,-soname,libzstd.so.1 -o "$LIB/libzstd.so.1.tmp" \
    $zstd/zstd.c
mv "$LIB/liblz4.so.1.tmp" "$LIB/liblz4.so.1"
mv "$LIB/libzstd.so.1.tmp" "$LIB/libzstd.so.1"
printf 'lz4 %s\nzstd %s\n' "$lz4Version" "$zstdVersion" >"$LIB/VERSIONS"
echo "other-compressors: $LIB (lz4 $lz4Version, zstd $zstdVersion)" >&2
