#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet.
# A half-configured dpkg state (seen on fresh images: an upgraded perl beside an old perl-base)
# makes the first install fail; it is repaired with `apt-get -f install` and the install retried once.
# Usage: Tools/install-packages.sh PACKAGE...
set -euo pipefail

missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
((${#missing[@]})) || exit 0

echo "installing: ${missing[*]}" >&2
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)
apt() { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }

apt update -qq
if ! apt install -y -qq "${missing[@]}" >/tmp/webarc-apt.log 2>&1; then
    echo "apt-get install failed; repairing with apt-get -f install and retrying (log: /tmp/webarc-apt.log)" >&2
    "${SUDO[@]}" dpkg --configure -a >>/tmp/webarc-apt.log 2>&1 || true
    apt install -f -y -qq >>/tmp/webarc-apt.log 2>&1 || true
    apt install -y -qq "${missing[@]}" >>/tmp/webarc-apt.log 2>&1 \
        || { tail -20 /tmp/webarc-apt.log >&2; echo "could not install: ${missing[*]}" >&2; exit 1; }
fi
