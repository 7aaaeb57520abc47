#!/usr/bin/env bash
# Builds the DocC documentation of every library module an app or tool imports, with warnings as
# errors: an unresolved ``Symbol`` link, a parameter documented under another name or a broken
# article link fails the run. Tools/test.sh runs it before the test suite.
#
# Usage: Tools/docs.sh [OUTPUT-DIRECTORY]
#   Without a directory the archives go to a temporary one, removed at exit (a check only); with
#   one, each module's archive is left there as <Module>.doccarchive (`docc preview` or any static
#   server shows it).
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(WebArc WebArcURLProtocol WebArcServer WebArcRemote WebArcInterop WebArcZim WebArcSearch)

if (($#)); then
    output=$1
    mkdir -p "$output"
else
    output=$(mktemp -d "${TMPDIR:-/tmp}/webarc-docs.XXXXXX")
    trap 'rm -rf "$output"' EXIT
fi
output=$(cd "$output" && pwd)

targets=()
for module in "${modules[@]}"; do targets+=(--target "$module"); done

started=$(date +%s)
# The plugin builds each module's symbol graph (a debug build in .build) and runs `docc convert`
# on it and the module's catalog. Only public symbols are documented: `package` ones are not an
# app's API.
swift package --allow-writing-to-directory "$output" generate-documentation "${targets[@]}" \
    --output-path "$output" --warnings-as-errors --disable-indexing
echo "docs: ${#modules[@]} modules in $(($(date +%s) - started)) s" >&2
