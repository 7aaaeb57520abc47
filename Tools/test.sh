#!/usr/bin/env bash
# Installs what the test suite needs on a fresh Debian 12 machine with Swift, then runs every test.
# CI (.ci/run) runs exactly this. Usage: Tools/test.sh [extra `swift test` arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

Tools/install-packages.sh liblz4-dev pkg-config zlib1g-dev lz4 python3-venv chromium python3.11-doc

swift build --build-tests
swift test --skip-build "$@"
