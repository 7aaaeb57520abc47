#!/usr/bin/env bash
# Installs what webarc needs on a fresh Debian 12 machine with Swift, builds it, and runs the main
# job on the bundled sample site: pack it, verify it, show its info. Leaves sample.webarc here.
set -euo pipefail
cd "$(dirname "$0")/.."

# libcurl4-openssl-dev: a static Swift standard library links Foundation's networking part against it.
# libc6-dev, libstdc++-12-dev: the static libc.a and libstdc++.a of the static `webarc` (Swift's
# own prerequisites on Debian 12, named so that nothing is assumed).
# libzim-dev: ZIM import and export, in the companion webarc-zim (Debian has no static libzim).
# lz4 and zstd are the package's own (Sources/CLZ4, Sources/CZstd): no -dev package of theirs.
Tools/install-packages.sh pkg-config zlib1g-dev libcurl4-openssl-dev libc6-dev libstdc++-12-dev libzim-dev

# A release `webarc` is a static executable on Linux (Package.swift: WebArcCLI's linker settings),
# so a one-shot command such as `webarc cat` starts without the dynamic loader's work. It links
# only with --static-swift-stdlib: without it the static link misses CoreFoundation's symbols
# (e.g. `CFCharacterSetGetPredefined`). The companions below are ordinary dynamic executables.
swift build -c release --product webarc --static-swift-stdlib
swift build -c release --product webarc-capture   # what `webarc capture` runs
swift build -c release --product webarc-zim       # what `webarc import FILE.zim` and `export --format zim` run
webarc=.build/release/webarc
$webarc pack Tools/sample-site -o sample.webarc --force
$webarc verify sample.webarc
$webarc info sample.webarc
echo
echo "Next: $webarc ls sample.webarc | $webarc cat sample.webarc http://localhost/ | $webarc serve sample.webarc"
