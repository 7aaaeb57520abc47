#!/usr/bin/env bash
# Update benchmark (issue 14): webarc diff / apply / layered serve against zstd --patch-from and
# xdelta3 on consecutive releases, in one run, as ratios. See Tools/bench/README.md.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/update-bench.sh [--rounds N] [--series LIST] [--duration SECONDS]
                                   [--connections N] [--no-serve] [--help]

Builds the release series with Tools/bench/make_releases.py (kept in WORK across runs): flask
(the Flask 3.0.1, 3.0.2, 3.0.3 docs built from PyPI source distributions with one Sphinx), pydocs
(Debian's Python 3.11 docs A; B = A with one added line in 10 % of the pages; C = B with pages
deleted, renamed, added) and multi (make_corpus.py's python-3.11.0 … .3). For each consecutive
pair OLD → NEW it packs both with `webarc pack`, makes deterministic tars, and measures:

  sizes   the changed bytes (files new or changed in NEW), the full NEW archive, `webarc diff
          --compact` (the compact update: what the goal line measures), `webarc diff`,
          `webarc pack NEW --base OLD`, `zstd -19 --long=31 --patch-from=OLD NEW` over the two
          archives and over the two tars (also with --single-thread, zstd's strongest), and
          `xdelta3 -e -9 -s OLD NEW` over the tars and over the archives
  times   wall seconds, CPU seconds and peak RSS (/usr/bin/time) of webarc diff and apply, zstd
          --patch-from compress and decompress, xdelta3 encode and decode: medians of N rounds
  checks  apply(OLD, diff(OLD, NEW)) == NEW byte for byte (cmp), and the same for every peer
  coded   how many chunks apply codes again (apply --json): the changed pages, plus the bodies
          whose dictionary anchor moved

Then it serves a 3-layer stack (U1 = diff V0 V1, U2 = diff U1 V0 V2; `webarc serve U2 U1 V0`)
against the applied V2 alone with `webarc serve`, both on 127.0.0.1: checks that every file of V2
comes back byte for byte from the stack and that the dropped paths give 404, then drives each
with wrk (hot page and mixed paths, the servers taking turns, N rounds) and reports the ratio.

Prints a Markdown table with the issue's goals to stdout and writes it to
Tools/bench/results/update-<date>-<time>.md. Progress goes to stderr.

Options:
  --rounds N          timed rounds per command and wrk rounds (default: 3)
  --series LIST       comma-separated subset of flask,pydocs,multi (default: all three)
  --duration SECONDS  length of each wrk run (default: 10), after a 2 s warm-up
  --connections N     wrk connections (default: 32)
  --no-serve          leave out the serving part
  -h, --help          show this help

Environment:
  WEBARC=/path/to/webarc   use this binary instead of building
                           `swift build -c release --product webarc --static-swift-stdlib` in the repository
  WORK=DIR                 releases, archives, tars and deltas (default: /tmp/update-bench; the
                           releases are kept across runs, the rest is redone)
  SERVE_SERIES=NAME        the series whose first three releases make the serve stack (default: pydocs)

Missing tools (python3.11-doc zstd xdelta3 wrk curl time) are installed through
Tools/install-packages.sh. Compare ratios taken in one run, never absolute figures from different
runs or machines.
EOF
}

ROUNDS=3
SERIES_LIST="flask,pydocs,multi"
DURATION=10
CONNECTIONS=32
SERVE=1
positive() { [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "update-bench: error: $1 needs a positive integer" >&2; exit 64; }; }
while (($#)); do
    case "$1" in
        --rounds) positive "$@"; ROUNDS="$2"; shift 2 ;;
        --duration) positive "$@"; DURATION="$2"; shift 2 ;;
        --connections) positive "$@"; CONNECTIONS="$2"; shift 2 ;;
        --series) [[ $# -ge 2 ]] || { echo "update-bench: error: --series needs a list" >&2; exit 64; }
            SERIES_LIST="$2"; shift 2 ;;
        --no-serve) SERVE=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "update-bench: error: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done
IFS=, read -r -a SERIES <<< "$SERIES_LIST"
for name in "${SERIES[@]}"; do
    [[ "$name" =~ ^(flask|pydocs|multi)$ ]] || { echo "update-bench: error: unknown series '$name' (flask, pydocs, multi)" >&2; exit 64; }
done

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
WORK="${WORK:-/tmp/update-bench}"
SERVE_SERIES="${SERVE_SERIES:-pydocs}"
say() { printf 'update-bench: %s\n' "$*" >&2; }
die() { printf 'update-bench: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$SCRIPT_DIR/lib.sh"

# --- tools -------------------------------------------------------------------------------------

missing=()
[[ -d /usr/share/doc/python3.11/html ]] || missing+=(python3.11-doc)
[[ -x /usr/bin/time ]] || missing+=(time)
for pair in zstd:zstd xdelta3:xdelta3 wrk:wrk curl:curl; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
if ((${#missing[@]})); then
    "$REPO_ROOT/Tools/install-packages.sh" "${missing[@]}" || die "could not install ${missing[*]}"
fi
if [[ -z "${WEBARC:-}" ]]; then
    say "building webarc (release)"
    (cd "$REPO_ROOT" && swift build -c release --product webarc --static-swift-stdlib >&2) || die "swift build failed"
    WEBARC="$REPO_ROOT/.build/release/webarc"
fi
[[ -x "$WEBARC" ]] || die "no webarc binary at $WEBARC"
# An unknown subcommand with --help prints the root help and exits 0, so look in the root list.
has_command() { "$WEBARC" --help 2>/dev/null | sed -n '/^SUBCOMMANDS/,$p' | grep -Eq "^  $1 "; }
HAS_DIFF=0; has_command diff && has_command apply && HAS_DIFF=1
HAS_BASE=0; "$WEBARC" pack --help 2>&1 | grep -Eq -- '--base([^-]|$)' && HAS_BASE=1
HAS_COMPACT=0; "$WEBARC" diff --help 2>&1 | grep -Eq -- '--compact' && HAS_COMPACT=1
((HAS_DIFF)) || say "this webarc has no diff/apply command: only the peers are measured"

# --- releases ----------------------------------------------------------------------------------

mkdir -p "$WORK"
chmod 755 "$WORK"
python3 "$SCRIPT_DIR/make_releases.py" "$WORK" "${SERIES[@]}" || die "make_releases.py failed"
OUT="$WORK/run"
rm -rf "$OUT"
mkdir -p "$OUT"
releases_of() { (cd "$WORK/releases/$1" && ls -d -- */ | tr -d / | LC_ALL=C sort -V); }

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# timed KEY OUTPUT COMMAND...: runs COMMAND with OUTPUT removed first; appends wall s, CPU s and
# peak RSS KiB to WALL[KEY], CPU[KEY], RSS[KEY]. A failing command's stderr is kept in FAIL[KEY].
# Wall time is taken around /usr/bin/time to the millisecond (its own %e has 10 ms steps); the
# start of /usr/bin/time itself, about a millisecond, is included for every tool alike.
declare -A WALL CPU RSS FAIL=()   # =(): an empty, never-assigned array is unset under set -u
timed() {
    local key=$1 output=$2 start end; shift 2
    rm -rf "$output"
    start=$(date +%s%N)
    if /usr/bin/time -f '%U %S %M' -o "$OUT/time.txt" "$@" > /dev/null 2> "$OUT/stderr.txt"; then
        end=$(date +%s%N)
        read -r user system rss < <(tail -1 "$OUT/time.txt")
        WALL[$key]+=" $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
        CPU[$key]+=" $(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.2f", u + s }')"
        RSS[$key]+=" $rss"
    else
        FAIL[$key]="$(grep -v '^Command exited' "$OUT/stderr.txt" | head -3 | tr '\n' ' ')"
        say "$key failed: ${FAIL[$key]}"
        return 1
    fi
}
size_of() { [[ -f "$1" ]] && stat -c %s "$1" || echo n/a; }
same() { [[ -f "$1" && -f "$2" ]] && cmp -s "$1" "$2" && echo yes || echo no; }

# changed_bytes OLD_DIR NEW_DIR → "files bytes added deleted": files new or changed in NEW and their size.
changed_bytes() {
    python3 - "$1" "$2" <<'PY'
import filecmp, os, sys
old, new = sys.argv[1:]
def files(root):
    return {os.path.relpath(os.path.join(d, n), root) for d, _, ns in os.walk(root) for n in ns}
a, b = files(old), files(new)
changed = [p for p in b if p not in a or not filecmp.cmp(os.path.join(old, p), os.path.join(new, p), shallow=False)]
print(len(changed), sum(os.path.getsize(os.path.join(new, p)) for p in changed), len(b - a), len(a - b))
PY
}

# --- pack and tar --------------------------------------------------------------------------------

declare -A ARCHIVE TAR DIR PACK_SAME
PAIRS=()
for series in "${SERIES[@]}"; do
    mapfile -t names < <(releases_of "$series")
    previous=""
    for name in "${names[@]}"; do
        id="$series/$name"
        DIR[$id]="$WORK/releases/$series/$name"
        ARCHIVE[$id]="$OUT/$series-$name.webarc"
        TAR[$id]="$OUT/$series-$name.tar"
        say "packing $id"
        "$WEBARC" pack "${DIR[$id]}" -o "${ARCHIVE[$id]}" --quiet
        tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "${TAR[$id]}" -C "${DIR[$id]}" .
        [[ -n "$previous" ]] && PAIRS+=("$previous $id")
        previous=$id
    done
    # apply can only give NEW byte for byte if packing the same folder twice does.
    first="$series/${names[0]}"
    "$WEBARC" pack "${DIR[$first]}" -o "$OUT/repack.webarc" --quiet
    PACK_SAME[$series]=$(same "${ARCHIVE[$first]}" "$OUT/repack.webarc")
    rm -f "$OUT/repack.webarc"
done

# --- pairs ---------------------------------------------------------------------------------------

declare -A CHANGED SIZE SAME CODED
NC_SIZES=0   # set when an update size is --no-check's (diff's check failed): marked with *
ZSTD=(zstd -q -f -19 --long=31)
for pair in "${PAIRS[@]}"; do
    read -r old new <<< "$pair"
    p="$old>$new"
    CHANGED[$p]=$(changed_bytes "${DIR[$old]}" "${DIR[$new]}")
    base="$OUT/$(tr '/>' '--' <<< "$p")"
    for round in $(seq 1 "$ROUNDS"); do
        say "round $round/$ROUNDS: $old → $new"
        if ((HAS_DIFF)); then
            timed "$p diff" "$base.update.webarc" "$WEBARC" diff "${ARCHIVE[$old]}" "${ARCHIVE[$new]}" -o "$base.update.webarc" --quiet || true
            # diff applies its update once to check it; --no-check leaves that out.
            timed "$p diff --no-check" "$base.update-nc.webarc" "$WEBARC" diff --no-check "${ARCHIVE[$old]}" "${ARCHIVE[$new]}" -o "$base.update-nc.webarc" --quiet || true
            # When diff's check fails it leaves no update: apply then gets the --no-check one.
            update="$base.update.webarc"; [[ -f "$update" ]] || update="$base.update-nc.webarc"
            timed "$p apply" "$base.applied.webarc" "$WEBARC" apply "${ARCHIVE[$old]}" "$update" -o "$base.applied.webarc" --quiet || true
            # A reference for apply: verify decodes every chunk of NEW and checks its SHA-256, as
            # apply does for what it codes again, and for everything it copies when it cannot rely
            # on the update's bodyData (zstd checks nothing it copies).
            timed "$p verify new" "$base.verify-output" "$WEBARC" verify "${ARCHIVE[$new]}" --quiet || true
        fi
        if ((HAS_COMPACT)); then
            # The compact update (the transport form): diff --compact (which applies it once to check
            # it), then apply from it, and the servable layer from it (apply --layer).
            timed "$p compact" "$base.compact.webarcu" "$WEBARC" diff --compact "${ARCHIVE[$old]}" "${ARCHIVE[$new]}" -o "$base.compact.webarcu" --quiet || true
            timed "$p apply compact" "$base.compact-applied.webarc" "$WEBARC" apply "${ARCHIVE[$old]}" "$base.compact.webarcu" -o "$base.compact-applied.webarc" --quiet || true
            timed "$p expand compact" "$base.compact-layer.webarc" "$WEBARC" apply "${ARCHIVE[$old]}" "$base.compact.webarcu" --layer -o "$base.compact-layer.webarc" --quiet || true
        fi
        for kind in archive tar; do
            if [[ $kind == archive ]]; then a=${ARCHIVE[$old]}; b=${ARCHIVE[$new]}; else a=${TAR[$old]}; b=${TAR[$new]}; fi
            timed "$p zstd $kind" "$base.$kind.zst" "${ZSTD[@]}" --patch-from="$a" "$b" -o "$base.$kind.zst" || true
            timed "$p unzstd $kind" "$base.$kind.unzstd" zstd -q -f -d --long=31 --patch-from="$a" "$base.$kind.zst" -o "$base.$kind.unzstd" || true
            timed "$p xdelta3 $kind" "$base.$kind.xd3" xdelta3 -e -9 -f -s "$a" "$b" "$base.$kind.xd3" || true
            timed "$p unxdelta3 $kind" "$base.$kind.unxd3" xdelta3 -d -f -s "$a" "$base.$kind.xd3" "$base.$kind.unxd3" || true
        done
    done
    # zstd's own advice for the smallest patch; once, as it is the slowest command here.
    say "$old → $new: zstd --single-thread over the tars"
    timed "$p zstd1 tar" "$base.tar.zst1" "${ZSTD[@]}" --single-thread --patch-from="${TAR[$old]}" "${TAR[$new]}" -o "$base.tar.zst1" || true
    timed "$p unzstd1 tar" "$base.tar.unzstd1" zstd -q -f -d --long=31 --patch-from="${TAR[$old]}" "$base.tar.zst1" -o "$base.tar.unzstd1" || true
    SIZE[$p new]=$(size_of "${ARCHIVE[$new]}")
    SIZE[$p newtar]=$(size_of "${TAR[$new]}")
    SIZE[$p diff]=$(size_of "$base.update.webarc")
    [[ "${SIZE[$p diff]}" == n/a && -f "$base.update-nc.webarc" ]] && SIZE[$p diff]="$(size_of "$base.update-nc.webarc")*" && NC_SIZES=1
    SIZE[$p compact]=$(size_of "$base.compact.webarcu")
    SAME[$p compact]=n/a
    SAME[$p compact layer]=n/a
    ((HAS_COMPACT)) && SAME[$p compact]=$(same "${ARCHIVE[$new]}" "$base.compact-applied.webarc") \
        && SAME[$p compact layer]=$(same "$base.update.webarc" "$base.compact-layer.webarc")
    SAME[$p diff]=n/a
    SAME[$p diff nc]=n/a
    ((HAS_DIFF)) && SAME[$p diff]=$(same "${ARCHIVE[$new]}" "$base.applied.webarc") && [[ -f "$base.update.webarc" ]] && SAME[$p diff nc]=$(same "$base.update.webarc" "$base.update-nc.webarc")
    # How many chunks apply codes again rather than copying from OLD: what the anchor rule
    # (spec Appendix C step 13) decides beyond the changed pages themselves. One untimed run.
    CODED[$p]=n/a
    if ((HAS_DIFF)) && [[ -f "$base.update.webarc" ]]; then
        CODED[$p]=$("$WEBARC" apply "${ARCHIVE[$old]}" "$base.update.webarc" -o "$base.coded.webarc" --force --json 2> /dev/null \
            | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["chunksCoded"], "of", d["chunksCoded"] + d["chunksReused"])' \
            2> /dev/null) || CODED[$p]=n/a
    fi
    for kind in archive tar; do
        [[ $kind == archive ]] && b=${ARCHIVE[$new]} || b=${TAR[$new]}
        SIZE[$p zstd $kind]=$(size_of "$base.$kind.zst")
        SIZE[$p xdelta3 $kind]=$(size_of "$base.$kind.xd3")
        SAME[$p zstd $kind]=$(same "$b" "$base.$kind.unzstd")
        SAME[$p xdelta3 $kind]=$(same "$b" "$base.$kind.unxd3")
    done
    SIZE[$p zstd1 tar]=$(size_of "$base.tar.zst1")
    SAME[$p zstd1 tar]=$(same "${TAR[$new]}" "$base.tar.unzstd1")
    if ((HAS_BASE)); then
        timed "$p pack --base" "$base.packbase.webarc" "$WEBARC" pack "${DIR[$new]}" --base "${ARCHIVE[$old]}" -o "$base.packbase.webarc" --quiet || true
        SIZE[$p packbase]=$(size_of "$base.packbase.webarc")
        if ((HAS_DIFF)) && [[ -f "$base.packbase.webarc" ]]; then
            "$WEBARC" apply "${ARCHIVE[$old]}" "$base.packbase.webarc" -o "$base.packbase-applied.webarc" 2> "$OUT/stderr.txt" \
                || FAIL[$p apply packbase]="$(head -3 "$OUT/stderr.txt" | tr '\n' ' ')"
            SAME[$p packbase]=$(same "${ARCHIVE[$new]}" "$base.packbase-applied.webarc")
        fi
    fi
    rm -f "$base".*.unzstd* "$base".*.unxd3 "$base.applied.webarc" "$base.packbase-applied.webarc" "$base.update-nc.webarc"
done

# --- serve: a 3-layer stack against the applied archive ----------------------------------------------

SERVE_DONE=0
declare -A RPS P99 NON2XX
if ((SERVE && HAS_DIFF)); then
    mapfile -t chain < <(releases_of "$SERVE_SERIES" | head -3)
    ((${#chain[@]} == 3)) || die "$SERVE_SERIES has fewer than 3 releases"
    [[ -n "${ARCHIVE[$SERVE_SERIES/${chain[0]}]:-}" ]] || die "--series must include $SERVE_SERIES for the serve part (or set SERVE_SERIES)"
    v0=${ARCHIVE[$SERVE_SERIES/${chain[0]}]}; v1=${ARCHIVE[$SERVE_SERIES/${chain[1]}]}; v2=${ARCHIVE[$SERVE_SERIES/${chain[2]}]}
    v2_dir=${DIR[$SERVE_SERIES/${chain[2]}]}; v0_dir=${DIR[$SERVE_SERIES/${chain[0]}]}
    say "serve: making the stack U2 U1 V0 from $SERVE_SERIES ${chain[*]}"
    # If diff's own check (an apply) fails, the stack is made with --no-check: serving does not
    # apply, and the check below compares every served body with V2's files anyway.
    STACK_NOTE=""
    make_update() {   # OUTPUT ARCHIVE...
        local output=$1; shift
        "$WEBARC" diff "$@" -o "$output" --quiet 2> "$OUT/stderr.txt" && return 0
        FAIL[stack diff $(basename "$output")]="$(head -3 "$OUT/stderr.txt" | tr '\n' ' ')"
        STACK_NOTE=" (made with diff --no-check: diff's check failed)"
        "$WEBARC" diff --no-check "$@" -o "$output" --quiet 2> "$OUT/stderr.txt" || die "webarc diff --no-check $*: $(head -3 "$OUT/stderr.txt")"
    }
    make_update "$OUT/U1.webarc" "$v0" "$v1"
    make_update "$OUT/U2.webarc" "$OUT/U1.webarc" "$v0" "$v2"
    SIZE[stack U1]=$(size_of "$OUT/U1.webarc"); SIZE[stack U2]=$(size_of "$OUT/U2.webarc")
    # The stack applied in one step gives V2 byte for byte; that file is what the stack is served against.
    if "$WEBARC" apply "$OUT/U1.webarc" "$v0" "$OUT/U2.webarc" -o "$OUT/V2-applied.webarc" --quiet 2> "$OUT/stderr.txt"; then
        SAME[stack apply]=$(same "$v2" "$OUT/V2-applied.webarc")
    else
        FAIL[stack apply]="$(head -3 "$OUT/stderr.txt" | tr '\n' ' ')"
        SAME[stack apply]="failed (the packed V2 is served instead)"
        cp "$v2" "$OUT/V2-applied.webarc"
    fi

    (cd "$v2_dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) > "$OUT/v2-paths.txt"
    (cd "$v0_dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | LC_ALL=C comm -23 - "$OUT/v2-paths.txt" > "$OUT/dropped-paths.txt"
    total=$(wc -l < "$OUT/v2-paths.txt")
    step=$(( total > 1000 ? total / 500 : 1 ))
    awk -v step="$step" '(NR - 1) % step == 0' "$OUT/v2-paths.txt" | grep -v ' ' > "$OUT/paths.txt" || true
    make_lua / "$OUT/paths.txt" "$OUT/mixed.lua"

    STACK_PORT=$(free_port)
    "$WEBARC" serve "$OUT/U2.webarc" "$OUT/U1.webarc" "$v0" --port "$STACK_PORT" --quiet > "$OUT/stack.out" 2> "$OUT/stack.err" &
    PIDS+=($!); STACK_PID=$!
    ONE_PORT=$(free_port)
    "$WEBARC" serve "$OUT/V2-applied.webarc" --port "$ONE_PORT" --quiet > "$OUT/one.out" 2> "$OUT/one.err" &
    PIDS+=($!); ONE_PID=$!
    wait_for "http://127.0.0.1:$STACK_PORT/index.html" || die "the stack server does not answer: $(head -3 "$OUT/stack.err")"
    wait_for "http://127.0.0.1:$ONE_PORT/index.html" || die "the applied archive's server does not answer: $(head -3 "$OUT/one.err")"

    # Every file of V2 byte for byte from the stack, every dropped path 404.
    SERVE_CHECK=$(python3 - "$STACK_PORT" "$v2_dir" "$OUT/v2-paths.txt" "$OUT/dropped-paths.txt" <<'PY'
import http.client, sys, urllib.parse
port, root, paths, dropped = sys.argv[1:]
conn = http.client.HTTPConnection("127.0.0.1", int(port))
def get(path):
    conn.request("GET", "/" + urllib.parse.quote(path))
    response = conn.getresponse()
    return response.status, response.read()
bad = []
files = open(paths).read().split("\n")[:-1]
for path in files:
    status, body = get(path)
    if status != 200 or body != open(f"{root}/{path}", "rb").read():
        bad.append(f"{path} ({status}, {len(body)} bytes)")
gone = open(dropped).read().split("\n")[:-1]
for path in gone:
    status, _ = get(path)
    if status != 404:
        bad.append(f"dropped {path} ({status})")
print(f"{len(files) - sum(1 for b in bad if not b.startswith('dropped'))} of {len(files)} files equal, "
      f"{len(gone) - sum(1 for b in bad if b.startswith('dropped'))} of {len(gone)} dropped paths 404"
      + (f"; first wrong: {'; '.join(bad[:3])}" if bad else ""))
PY
)
    say "stack check: $SERVE_CHECK"

    declare -A PORT_OF=([stack]=$STACK_PORT [one]=$ONE_PORT)
    for round in $(seq 1 "$ROUNDS"); do
        for name in stack one; do
            for kind in hot mixed; do
                say "serve round $round/$ROUNDS: $name, $kind"
                url="http://127.0.0.1:${PORT_OF[$name]}/"; args=()
                if [[ $kind == hot ]]; then url="${url}index.html"; else args=(-s "$OUT/mixed.lua"); fi
                wrk -t2 -c"$CONNECTIONS" -d2s "${args[@]}" "$url" > /dev/null
                out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "${args[@]}" "$url")
                RPS[$name-$kind]+=" $(awk '/^Requests\/sec:/ {printf "%.0f", $2}' <<< "$out")"
                P99[$name-$kind]+=" $(to_ms "$(awk '$1 == "99%" {print $2}' <<< "$out")")"
                non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<< "$out")
                NON2XX[$name]=$(( ${NON2XX[$name]:-0} + ${non2xx:-0} ))
            done
        done
    done
    SERVE_RSS="stack $(mib "$(rss_kib "$STACK_PID")") MiB, one archive $(mib "$(rss_kib "$ONE_PID")") MiB"
    SERVE_DONE=1
fi

# --- report --------------------------------------------------------------------------------------

cell() {   # KEY → "wall s (CPU s) / MiB" medians, or the failure
    local key=$1
    if [[ -n "${FAIL[$key]:-}" && -z "${WALL[$key]:-}" ]]; then echo "failed"; return; fi
    [[ -n "${WALL[$key]:-}" ]] || { echo "n/a"; return; }
    echo "$(median "${WALL[$key]}") s ($(median "${CPU[$key]}") s CPU) / $(mib "$(median "${RSS[$key]}")") MiB"
}
med() { [[ -n "${WALL[$1]:-}" ]] && median "${WALL[$1]}" || echo n/a; }
maxrss() { [[ -n "${RSS[$1]:-}" ]] && tr ' ' '\n' <<< "${RSS[$1]}" | sort -g | tail -1 || echo n/a; }
goal_met() { awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN { if (a == "n/a" || a == "") { print "n/a"; exit }
    ok = (op == "<=") ? (a + 0 <= b + 0) : (op == "<") ? (a + 0 < b + 0) : (a + 0 >= b + 0); print ok ? "yes" : "**no**" }'; }
smaller() { printf '%s\n' "$@" | grep -v n/a | sort -g | head -1; }   # the least of the figures given

# each_pair ROW: calls ROW OLD NEW KEY LABEL for every pair, in order.
each_pair() {
    local pair old new
    for pair in "${PAIRS[@]}"; do
        read -r old new <<< "$pair"
        "$1" "$old" "$new" "$old>$new" "$old → ${new#*/}"
    done
}
size_row() {   # sizes, each with its ratio to zstd --patch-from over the tars
    local p=$3 ref=${SIZE[$3 zstd tar]} cfiles cbytes cadded cdeleted
    read -r cfiles cbytes cadded cdeleted <<< "${CHANGED[$p]}"
    r() { [[ "$1" == n/a || "$ref" == n/a ]] && echo "$1" || echo "$1 ($(ratio "$1" "$ref"))"; }
    echo "| $4 | $cfiles, $cbytes (+$cadded −$cdeleted) | ${SIZE[$p new]} | ${SIZE[$p newtar]} | $(r "${SIZE[$p compact]}") | $(r "${SIZE[$p diff]}") | $(r "${SIZE[$p packbase]:-n/a}") | $(r "${SIZE[$p zstd archive]}") | $ref | $(r "${SIZE[$p zstd1 tar]}") | $(r "${SIZE[$p xdelta3 tar]}") | $(r "${SIZE[$p xdelta3 archive]}") |"
}
time_row() {
    local p=$3
    echo "| $4 | $(cell "$p compact") | $(cell "$p apply compact") | $(cell "$p expand compact") | $(cell "$p diff") | $(cell "$p diff --no-check") | $(cell "$p apply") | $(cell "$p zstd archive") · $(cell "$p unzstd archive") | $(cell "$p zstd tar") · $(cell "$p unzstd tar") | $(cell "$p zstd1 tar") · $(cell "$p unzstd1 tar") | $(cell "$p xdelta3 tar") · $(cell "$p unxdelta3 tar") | $(cell "$p xdelta3 archive") · $(cell "$p unxdelta3 archive") |"
}
trip_row() {
    local p=$3
    echo "| $4 | ${SAME[$p compact]} | ${SAME[$p compact layer]} | ${SAME[$p diff]} | ${SAME[$p diff nc]} | ${SAME[$p packbase]:-n/a} | ${SAME[$p zstd archive]} | ${SAME[$p zstd tar]} | ${SAME[$p zstd1 tar]} | ${SAME[$p xdelta3 tar]} | ${SAME[$p xdelta3 archive]} |"
}
size_goal_row() {   # the bar is the smaller zstd patch (the issue's ~15 KB on pydocs is --single-thread's)
    local p=$3 best r
    best=$(smaller "${SIZE[$p zstd tar]}" "${SIZE[$p zstd1 tar]}")
    # What crosses the link: the compact update (the layer update archive when there is none).
    local shipped=${SIZE[$p compact]} what="compact update"
    [[ $shipped == n/a ]] && shipped=${SIZE[$p diff]} && what="update archive"
    r=$(ratio "$shipped" "$best")
    echo "| update size ($what) ÷ smaller zstd --patch-from tars, $4 | $r ($shipped / $best B; ÷ xdelta3 tars $(ratio "$shipped" "${SIZE[$p xdelta3 tar]}"); update archive $(ratio "${SIZE[$p diff]}" "$best")) | ≤ 1.0 | $(goal_met "$r" "<=" 1) |"
}
time_goal_rows() {   # the bar is the faster of zstd over the archives and over the tars
    local p=$3 zc zd dr ar step m
    zc=$(smaller "$(med "$p zstd archive")" "$(med "$p zstd tar")")
    zd=$(smaller "$(med "$p unzstd archive")" "$(med "$p unzstd tar")")
    dr=$(ratio "$(med "$p diff")" "$zc"); ar=$(ratio "$(med "$p apply")" "$zd")
    local cr; cr=$(ratio "$(med "$p apply compact")" "$zd")
    echo "| diff time ÷ faster zstd --patch-from compress, $4 | $dr ($(med "$p diff") / $zc s; --no-check $(ratio "$(med "$p diff --no-check")" "$zc")) | < 1.0 | $(goal_met "$dr" "<" 1) |"
    echo "| apply time ÷ faster zstd --patch-from decompress, $4 | $ar ($(med "$p apply") / $zd s) | < 1.0 | $(goal_met "$ar" "<" 1) |"
    echo "| apply from the compact update ÷ faster zstd --patch-from decompress, $4 | $cr ($(med "$p apply compact") / $zd s) | < 1.0 | $(goal_met "$cr" "<" 1) |"
    echo "| reference: \`webarc verify NEW\` (every chunk decoded and its SHA-256 checked, as apply does for what it codes again, and for what it copies without the update's bodyData) ÷ faster zstd --patch-from decompress, $4 | $(ratio "$(med "$p verify new")" "$zd") ($(med "$p verify new") / $zd s) | (reference) | – |"
    for step in diff "diff --no-check" apply compact "apply compact"; do
        m=$(maxrss "$p $step"); [[ $m == n/a ]] || m=$(mib "$m")
        echo "| $step peak RSS (worst round), $4 | $m MiB (zstd tars: $(mib "$(maxrss "$p zstd tar")") MiB) | ≤ 64 MiB | $(goal_met "$m" "<=" 64) |"
    done
}

mkdir -p "$SCRIPT_DIR/results"
REPORT="$SCRIPT_DIR/results/update-$(date +%Y%m%d-%H%M%S).md"
{
    echo "## Updates between consecutive releases ($(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $ROUNDS rounds)"
    echo
    echo "webarc: \`$WEBARC\` ($("$WEBARC" --version 2>/dev/null || echo unknown)). zstd $(zstd -V | grep -o 'v[0-9.]*'), xdelta3 $(xdelta3 -V 2>&1 | grep -o '3\.[0-9.a-z]*' | head -1). Releases ($WORK/releases/VERSIONS.txt):"
    echo
    sed 's/^/- /' "$WORK/releases/VERSIONS.txt"
    echo
    echo "### Sizes (bytes; ratio to \`zstd -19 --long=31 --patch-from\` over the tars in brackets)"
    echo
    echo "| OLD → NEW | changed files: count, bytes (+added −deleted) | full NEW .webarc | NEW .tar | webarc diff --compact | webarc diff (update archive) | webarc pack --base | zstd archives | zstd tars | zstd tars --single-thread | xdelta3 -9 tars | xdelta3 -9 archives |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    each_pair size_row
    ((NC_SIZES)) && echo && echo "\* \`webarc diff\` failed its check (see Failures) and wrote nothing: the size is \`diff --no-check\`'s update, which apply refuses."
    echo
    echo "### Times: wall (CPU) / peak RSS, medians of $ROUNDS (zstd --single-thread: one run)"
    echo
    echo "| OLD → NEW | webarc diff --compact | webarc apply (compact) | webarc apply --layer (compact) | webarc diff | webarc diff --no-check | webarc apply | zstd archives c · d | zstd tars c · d | zstd tars --single-thread c · d | xdelta3 tars e · d | xdelta3 archives e · d |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    each_pair time_row
    echo
    echo "### Round trips (the output equals NEW byte for byte)"
    echo
    echo "| OLD → NEW | apply(OLD, diff --compact) == NEW | apply --layer == diff's update | apply(OLD, diff(OLD, NEW)) | diff --no-check gives the same update | apply(OLD, pack --base) | zstd archives | zstd tars | zstd --single-thread | xdelta3 tars | xdelta3 archives |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    each_pair trip_row
    echo
    echo "Chunks apply codes again (the rest are OLD's, reused): $(for pair in "${PAIRS[@]}"; do read -r old new <<< "$pair"; printf '%s → %s %s; ' "$old" "$new" "${CODED[$old>$new]:-n/a}"; done)"
    echo
    echo "Packing the same folder twice gives the same archive: $(for s in "${SERIES[@]}"; do printf '%s %s; ' "$s" "${PACK_SAME[$s]}"; done)"
    if ((${#FAIL[@]})); then
        echo
        echo "Failures (first lines of stderr):"
        printf '%s\n' "${!FAIL[@]}" | LC_ALL=C sort | while read -r key; do echo "- \`$key\`: ${FAIL[$key]}"; done
    fi
    if ((SERVE_DONE)); then
        echo
        echo "### Serving: \`webarc serve U2 U1 V0\` against \`webarc serve V2\` ($SERVE_SERIES ${chain[*]}; wrk -t2 -c$CONNECTIONS -d${DURATION}s, medians of $ROUNDS rounds)"
        echo
        echo "U1 = diff V0 V1: ${SIZE[stack U1]} bytes; U2 = diff U1 V0 V2: ${SIZE[stack U2]} bytes$STACK_NOTE; apply(U1 V0, U2) == V2: ${SAME[stack apply]}. Stack check: $SERVE_CHECK. RSS after the runs: $SERVE_RSS."
        echo
        echo "| server | hot req/s | hot p99 ms | mixed req/s ($(wc -l < "$OUT/paths.txt") paths) | mixed p99 ms | non-2xx |"
        echo "|---|---|---|---|---|---|"
        for name in stack one; do
            label="3-layer stack"; [[ $name == one ]] && label="applied V2"
            echo "| $label | $(median "${RPS[$name-hot]}") | $(median "${P99[$name-hot]}") | $(median "${RPS[$name-mixed]}") | $(median "${P99[$name-mixed]}") | ${NON2XX[$name]:-0} |"
        done
        echo
        echo "Every run, req/s (hot; mixed): stack${RPS[stack-hot]};${RPS[stack-mixed]} · applied${RPS[one-hot]};${RPS[one-mixed]}"
    fi
    echo
    echo "### Goals (issue 14)"
    echo
    echo "| goal | measured | target | met |"
    echo "|---|---|---|---|"
    each_pair size_goal_row
    each_pair time_goal_rows
    if ((SERVE_DONE)); then
        sr=$(ratio "$(median "${RPS[stack-mixed]}")" "$(median "${RPS[one-mixed]}")")
        hr=$(ratio "$(median "${RPS[stack-hot]}")" "$(median "${RPS[one-hot]}")")
        echo "| serve, 3-layer stack ÷ applied archive, mixed req/s | $sr (hot: $hr) | ≥ 0.9 | $(goal_met "$sr" ">=" 0.9) |"
    else
        echo "| serve, 3-layer stack ÷ applied archive | not measured | ≥ 0.9 | n/a |"
    fi
    all_same=yes
    for pair in "${PAIRS[@]}"; do read -r old new <<< "$pair"; [[ "${SAME[$old>$new diff]}" == yes ]] || all_same=no; done
    ((HAS_DIFF)) || all_same=n/a
    echo "| round trips: apply(OLD, diff(OLD, NEW)) == NEW on every pair | $all_same | yes | $([[ $all_same == yes ]] && echo yes || echo "**no**") |"
    compact_same=yes
    for pair in "${PAIRS[@]}"; do read -r old new <<< "$pair"; [[ "${SAME[$old>$new compact]}" == yes && "${SAME[$old>$new compact layer]}" == yes ]] || compact_same=no; done
    ((HAS_COMPACT)) || compact_same=n/a
    echo "| round trips: apply(OLD, diff --compact) == NEW and apply --layer == diff's update, every pair | $compact_same | yes | $([[ $compact_same == yes ]] && echo yes || echo "**no**") |"
} | tee "$REPORT"
say "wrote $REPORT"
