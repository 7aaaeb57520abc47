#!/usr/bin/env bash
# Imports every file of the shared corpus (../shared/corpus, or CORPUS=DIR) one by one with
# `webarc import --json` and prints a Markdown table: file, result, records read, responses and
# redirects kept, bodies stored, dedup ratio, stored bytes, time (median of RUNS, default 5).
# Usage: Tools/corpus/import-table.sh            (builds release unless WEBARC=/path/to/webarc)
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus="${CORPUS:-../shared/corpus}"
runs="${RUNS:-5}"
[ -d "$corpus" ] || { echo "import-table: no corpus at $corpus (set CORPUS=DIR)" >&2; exit 66; }
if [ -z "${WEBARC:-}" ]; then
    swift build -c release --product webarc --static-swift-stdlib >&2
    WEBARC=.build/release/webarc
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

echo "| file | bytes | result | records read | responses | redirects | bodies stored | dedup | stored bytes | import time (median of $runs) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for file in "$corpus"/*; do
    case "$file" in *.md) continue ;; esac
    name="$(basename "$file")"
    times=()
    status=0
    for _ in $(seq "$runs"); do
        start=$(date +%s.%N)
        "$WEBARC" import "$file" -o "$scratch/out.webarc" --force --json >"$scratch/summary.json" 2>"$scratch/stderr" || status=$?
        end=$(date +%s.%N)
        times+=("$(echo "$end - $start" | bc)")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.0f ms", a[int((NR+1)/2)]*1000}')
    size=$(stat -c %s "$file")
    if [ "$status" -eq 0 ]; then
        python3 - "$scratch/summary.json" "$name" "$size" "$median" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
records = sum(i["records"] for i in s["inputs"])
print(f"| `{sys.argv[2]}` | {sys.argv[3]} | imported | {records} | {s['responses']} | {s['redirects']} | "
      f"{s['bodiesStored']} of {s['bodiesReferenced']} | {s['dedupRatio']:.2f} | {s['storedBodyBytes']} | {sys.argv[4]} |")
PY
    else
        reason=$(grep -m1 "error:" "$scratch/stderr" | sed -e 's/^webarc: error: //' -e "s|$corpus/||" | cut -c1-140)
        echo "| \`$name\` | $size | fails (exit $status): $reason | | | | | | | $median |"
    fi
done
