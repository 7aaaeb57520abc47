#!/usr/bin/env bash
# ZIM import speed against zimdump, and the size of the imported archive against the ZIM.
# See Tools/bench/README.md ("zim-bench") for the goals.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/zim-bench.sh [--runs N] [--help]

Makes ZIMs of Debian's Python 3.11 documentation with zimwriterfs (one with its full-text index, one
without, -j), then times, in turn (A B A B …, so that a change in the machine's load falls on both
alike), `zimdump dump --dir=DIR` of the ZIM into a fresh folder and `webarc-zim import` of it into a
fresh archive (what `webarc import FILE.zim` runs), and the same import with --no-search, and
prints the median of each and their ratios. The timed outputs go to OUT, on tmpfs by default: on
ext4 a dump's time swings with the inodes that the previous run's removal left (ext4's
recently_deleted scan), so a disk makes the peer's time depend on what ran before it.
It then imports with --best (as `pack --best`), with and without webarc's search index, and compares
each with the ZIM made the same way (with and without its full-text index): like with like,
and writes the archive back with `webarc-zim export` and checks it with zimcheck. Prints a Markdown
table to stdout; progress goes to stderr.

Goals: import at least as fast as zimdump dumps (speed ratio ≥ 1.0); the --best archive no larger
than the ZIM (size ratio ≤ 1.0). Before each timed run the dump folder or the archive is removed
and the disk synced, untimed; zimdump writes no fsync, webarc syncs its archive before renaming it.

Options:
  --runs N    timed runs of each command after one warm-up (default: 9)
  -h, --help  show this help

Environment:
  WEBARC_ZIM=/path/to/webarc-zim  use this binary instead of building it (swift build -c release)
  WORK=DIR                        where the ZIMs are made once and kept (default: /var/tmp/webarc-zim-bench)
  OUT=DIR                         where the timed dumps and imports go, emptied before each run
                                  (default: /dev/shm/webarc-zim-bench, or WORK/out without /dev/shm)
EOF
}

RUNS=9
while (($#)); do
    case "$1" in
        --runs)
            [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "zim-bench: error: --runs needs a positive integer" >&2; exit 64; }
            RUNS="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "zim-bench: error: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done

cd "$(dirname "$0")/../.."
source Tools/bench/lib.sh
Tools/install-packages.sh python3.11-doc zim-tools libzim-dev

if [[ -z "${WEBARC_ZIM:-}" ]]; then
    echo "building webarc-zim (release)" >&2
    swift build -c release --product webarc-zim >&2
    WEBARC_ZIM=.build/release/webarc-zim
fi
WORK=${WORK:-/var/tmp/webarc-zim-bench}
mkdir -p "$WORK"
DOCS=/usr/share/doc/python3.11/html

# zimwriterfs wants a 48×48 PNG inside the folder, and follows no symbolic link out of it: a
# copy with the links resolved gets one (webarc-zim makes the PNG, as its export does).
if [[ ! -s "$WORK/pydocs.zim" || ! -s "$WORK/pydocs-noft.zim" ]]; then
    echo "making the ZIMs with zimwriterfs (about a minute each)" >&2
    rm -rf "$WORK/pydocs" && cp -rL "$DOCS" "$WORK/pydocs"
    python3 - "$WORK/pydocs/webarc-bench-illustration.png" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
raw = b"".join(b"\0" + b"\x2e\x6d\xa4" * 48 for _ in range(48))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 48, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
    flags=(-w index.html -I webarc-bench-illustration.png -l eng -t "Python docs" -d "Python 3.11 documentation" -c PSF -p webarc -n pydocs)
    zimwriterfs "${flags[@]}" "$WORK/pydocs" "$WORK/pydocs.zim" >/dev/null
    zimwriterfs -j "${flags[@]}" "$WORK/pydocs" "$WORK/pydocs-noft.zim" >/dev/null
fi
ZIM="$WORK/pydocs.zim"
if [[ -z "${OUT:-}" ]]; then
    if [[ -d /dev/shm ]]; then OUT=/dev/shm/webarc-zim-bench; else OUT="$WORK/out"; fi
fi
mkdir -p "$OUT"

# Seconds COMMAND takes, to the millisecond.
seconds() {
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}

# Each run starts with no dump folder and no archive; removing them is not timed.
dump() { zimdump dump --dir="$OUT/dump" "$ZIM"; }
import_zim() { "$WEBARC_ZIM" import "$ZIM" -o "$OUT/import.webarc" --quiet; }
import_unindexed() { "$WEBARC_ZIM" import "$ZIM" -o "$OUT/import.webarc" --quiet --no-search; }
clear() { rm -rf "$OUT/dump" "$OUT/import.webarc"; }

echo "warming up" >&2
clear; dump >/dev/null 2>&1; clear; import_unindexed; clear; import_zim
DUMP=""
IMPORT=""
UNINDEXED=""
for run in $(seq 1 "$RUNS"); do
    echo "run $run of $RUNS" >&2
    clear; sync
    DUMP+=" $(seconds dump)"
    clear; sync
    UNINDEXED+=" $(seconds import_unindexed)"
    clear; sync
    IMPORT+=" $(seconds import_zim)"
done
cp "$OUT/import.webarc" "$WORK/import.webarc"
clear
DUMP_MEDIAN=$(median "$DUMP")
IMPORT_MEDIAN=$(median "$IMPORT")
UNINDEXED_MEDIAN=$(median "$UNINDEXED")

echo "importing with --best, exporting and checking" >&2
"$WEBARC_ZIM" import "$ZIM" -o "$WORK/best.webarc" --force --quiet --best
"$WEBARC_ZIM" import "$ZIM" -o "$WORK/best-noindex.webarc" --force --quiet --best --no-search
EXPORT_SECONDS=$(seconds "$WEBARC_ZIM" export "$WORK/import.webarc" --format zim -o "$WORK/export.zim" --force --quiet)
if zimcheck "$WORK/export.zim" >"$WORK/zimcheck.log" 2>&1; then ZIMCHECK=pass; else ZIMCHECK="fail (see $WORK/zimcheck.log)"; fi

size() { stat -c %s "$1"; }
S_ZIM=$(size "$ZIM")
S_NOFT=$(size "$WORK/pydocs-noft.zim")
S_IMPORT=$(size "$WORK/import.webarc")
S_BEST=$(size "$WORK/best.webarc")
S_BEST_NOINDEX=$(size "$WORK/best-noindex.webarc")
S_EXPORT=$(size "$WORK/export.zim")

cat <<EOF
## zim-bench $(date -u +%Y-%m-%d) — Python 3.11 docs, $RUNS runs, medians

| measure | value | goal |
|---|---|---|
| \`zimdump dump\` (s) | $DUMP_MEDIAN | |
| \`webarc-zim import\` (s) | $IMPORT_MEDIAN | |
| speed, import ÷ zimdump (zimdump's time ÷ import's) | $(ratio "$DUMP_MEDIAN" "$IMPORT_MEDIAN") | ≥ 1.0 |
| \`webarc-zim import --no-search\` (s) | $UNINDEXED_MEDIAN | |
| speed without the search index, ÷ zimdump | $(ratio "$DUMP_MEDIAN" "$UNINDEXED_MEDIAN") | |
| ZIM, zimwriterfs with full-text index (bytes) | $S_ZIM | |
| ZIM, zimwriterfs -j, no full-text index (bytes) | $S_NOFT | |
| archive, import (bytes) | $S_IMPORT | |
| archive, import \`--best\`, with its search index (bytes) | $S_BEST | |
| archive, import \`--best --no-search\` (bytes) | $S_BEST_NOINDEX | |
| size with indexes, \`--best\` ÷ ZIM with its full-text index | $(ratio "$S_BEST" "$S_ZIM") | ≤ 1.0 |
| size without, \`--best --no-search\` ÷ ZIM -j | $(ratio "$S_BEST_NOINDEX" "$S_NOFT") | ≤ 1.0 |
| \`webarc-zim export\` of the import (s, bytes) | $EXPORT_SECONDS, $S_EXPORT | |
| zimcheck of the export | $ZIMCHECK | pass |

$(zimdump --version 2>&1 | head -1), $(zimwriterfs --version 2>&1 | head -1), libzim $(pkg-config --modversion libzim), $(nproc) cores; timed outputs in $OUT ($(df --output=fstype "$OUT" | tail -1)).
EOF
