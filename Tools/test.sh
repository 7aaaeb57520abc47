#!/usr/bin/env bash
# Installs what the test suite needs on a fresh Debian 12 machine with Swift, then runs every test.
# CI (.ci/run) runs exactly this. Usage: Tools/test.sh [extra `swift test` arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(liblz4-dev pkg-config zlib1g-dev lz4 python3-venv chromium)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

swift build --build-tests
swift test --skip-build "$@"
