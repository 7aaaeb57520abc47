#!/usr/bin/env bash
# Installs what the test suite needs on a fresh Debian 12 machine with Swift, then fuzzes and runs
# every test. CI (.ci/run) runs exactly this. Usage: Tools/test.sh [extra `swift test` arguments]
#
# Before the suite (which stays last, so `swift test`'s summary closes the output) every libFuzzer
# target of Tools/fuzz is built (debug, AddressSanitizer; its own package and .build) and given a
# fixed budget: each committed seed and fail case, then FUZZ_RUNS (default 2000) mutated inputs from
# seed 1, two targets at a time. The same commit gives the same run, so it cannot fail by chance;
# a crash fails CI here, with its input in Tools/fuzz/FailCases/<target>/. WEBARC_SKIP_FUZZ=1
# skips the step. Measured cost on the 2-core CI machine: see Tools/fuzz/README.md ("CI"). Then
# Tools/docs.sh builds the DocC documentation of the library modules, warnings as errors. The
# suite runs twice, the second time in portable mode (WEBARC_PORTABLE=1, README "Platforms").
set -euo pipefail
cd "$(dirname "$0")/.."

# libzim-dev builds webarc-zim (ZIM import and export); zim-tools (zimwriterfs, zimdump,
# zimcheck) are what the ZIM tests check it against. gcc-multilib builds the vendored compressors
# for 32-bit x86 (ThirtyTwoBitCompressorTests). lz4 and zstd are the package's own (Sources/CLZ4,
# Sources/CZstd): no -dev package of theirs is needed.
Tools/install-packages.sh pkg-config zlib1g-dev lz4 python3-venv chromium python3.11-doc libzim-dev zim-tools gcc-multilib

# A liblz4 1.9.3 and a libzstd 1.5.7 (from PyPI sdists, built once into /var/tmp and reused) for
# CrossLibraryApplyTests, which applies an update with them. Without network or PyPI that test
# skips, and CI says so here rather than passing quietly.
if ! Tools/other-compressors.sh; then
    echo "warning: Tools/other-compressors.sh failed: the cross-version apply test" \
        "(CrossLibraryApplyTests) is SKIPPED in this run" >&2
fi

# Every Swift file as the root .swift-format lays it out (`swift format -i -r Sources Tests Tools
# Package.swift` fixes what this reports).
swift format lint --strict -r --parallel Sources Tests Tools Package.swift

if [[ -z "${WEBARC_SKIP_FUZZ:-}" ]]; then
    started=$(date +%s)
    FUZZ_CONFIG=debug FUZZ_JOBS=2 FUZZ_RUNS=${FUZZ_RUNS:-2000} Tools/fuzz/run.sh
    echo "fuzz step: $(($(date +%s) - started)) s" >&2
fi

# The DocC documentation of the library modules Tools/docs.sh lists, warnings as errors
# (WEBARC_SKIP_DOCS=1 skips it).
if [[ -z "${WEBARC_SKIP_DOCS:-}" ]]; then
    Tools/docs.sh
fi

swift build --build-tests
started=$(date +%s)
swift test --skip-build "$@"
echo "test pass with the fast paths: $(($(date +%s) - started)) s" >&2
# The same tests again with WEBARC_PORTABLE=1: the same binaries with every Linux and x86 fast
# path off (AVX-512 hash lanes, SHA-NI, thread pinning, mallopt, sendfile, O_TMPFILE, writeback
# hints), which is the code an ARM or Apple build runs; `webarc` processes the tests start inherit it.
WEBARC_PORTABLE=1 swift test --skip-build "$@"
