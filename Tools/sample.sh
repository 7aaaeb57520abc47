#!/usr/bin/env bash
# Installs what webarc needs on a fresh Debian 12 machine with Swift, builds it, and runs the main
# job on the bundled sample site: pack it, verify it, show its info. Leaves sample.webarc here.
set -euo pipefail
cd "$(dirname "$0")/.."

# libcurl4-openssl-dev: a static Swift standard library links Foundation's networking part against it.
Tools/install-packages.sh liblz4-dev libzstd-dev pkg-config zlib1g-dev libcurl4-openssl-dev

# Static Swift standard library: a one-shot command such as `webarc cat` starts in about a third of
# the time a dynamically linked build takes (shared/PLATFORM-NOTES.md §10; issue 11).
swift build -c release --product webarc --static-swift-stdlib
swift build -c release --product webarc-capture   # what `webarc capture` runs
webarc=.build/release/webarc
$webarc pack Tools/sample-site -o sample.webarc --force
$webarc verify sample.webarc
$webarc info sample.webarc
echo
echo "Next: $webarc ls sample.webarc | $webarc cat sample.webarc http://localhost/ | $webarc serve sample.webarc"
