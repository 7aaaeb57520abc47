#!/usr/bin/env bash
# Installs what webarc needs on a fresh Debian 12 machine with Swift, builds it, and runs the main
# job on the bundled sample site: pack it, verify it, show its info. Leaves sample.webarc here.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(liblz4-dev pkg-config zlib1g-dev)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

swift build -c release --product webarc
webarc=.build/release/webarc
$webarc pack Tools/sample-site -o sample.webarc --force
$webarc verify sample.webarc
$webarc info sample.webarc
echo
echo "Next: $webarc ls sample.webarc | $webarc cat sample.webarc http://localhost/ | $webarc serve sample.webarc"
