#!/usr/bin/env bash
# Compare webarc with tar|lz4 and zip on the Python docs, in one run, as ratios.
# See Tools/bench/README.md for what is measured and the goals.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/pack-bench.sh [--runs N] [--help]

Packs the Python 3.11 docs (Debian package python3.11-doc) with webarc, tar | lz4 -1 and zip,
then times pack, unpack, verify and a one-URL lookup from a fresh process, and records archive
sizes and peak memory of pack. Prints a Markdown table of medians and ratios to stdout and
writes it to Tools/bench/results/pack-<date>-<time>.md. Progress goes to stderr.

Options:
  --runs N   timed runs per command, after one warm-up run (default: 10)
  -h, --help show this help

Environment:
  WEBARC=/path/to/webarc   use this binary instead of building
                           `swift build -c release --static-swift-stdlib` in the repository
  CORPUS=DIR               the site to pack (default: /usr/share/doc/python3.11/html)
  CAT_PATH=PATH            the file looked up by the one-URL test (default: library/index.html)
  NO_HYPERFINE=1           time with the Python loop even if hyperfine is installed

Missing tools (python3.11-doc lz4 zip unzip hyperfine time, libcurl4-openssl-dev for the static
build) are installed with apt-get.
Without hyperfine, a Python timing loop with the same rules is used.
Compare ratios taken in one run, never absolute figures from different machines or runs.
EOF
}

RUNS=10
while (($#)); do
    case "$1" in
        --runs)
            [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "pack-bench: error: --runs needs a positive integer" >&2; exit 64; }
            RUNS="$2"; shift 2 ;;
        --runs=*)
            RUNS="${1#--runs=}"
            [[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "pack-bench: error: --runs needs a positive integer" >&2; exit 64; }
            shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "pack-bench: error: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
CORPUS="${CORPUS:-/usr/share/doc/python3.11/html}"
CAT_PATH="${CAT_PATH:-library/index.html}"
BASE_URL="http://localhost/"

say() { printf 'pack-bench: %s\n' "$*" >&2; }
die() { printf 'pack-bench: error: %s\n' "$*" >&2; exit 1; }

# --- tools -------------------------------------------------------------------------------------

ensure_tools() {
    local missing=()
    if [[ "$CORPUS" == /usr/share/doc/python3.11/html && ! -d "$CORPUS" ]]; then missing+=(python3.11-doc); fi
    command -v lz4 >/dev/null || missing+=(lz4)
    command -v zip >/dev/null || missing+=(zip)
    command -v unzip >/dev/null || missing+=(unzip)
    [[ -x /usr/bin/time ]] || missing+=(time)
    command -v python3 >/dev/null || missing+=(python3)
    # A static Swift standard library links FoundationNetworking against libcurl's development files.
    [[ -n "${WEBARC:-}" ]] || dpkg-query -W -f='${Status}' libcurl4-openssl-dev 2>/dev/null | grep -q "install ok installed" \
        || missing+=(libcurl4-openssl-dev)
    local want_hyperfine=0
    if [[ -z "${NO_HYPERFINE:-}" ]] && ! command -v hyperfine >/dev/null; then want_hyperfine=1; fi
    ((${#missing[@]} || want_hyperfine)) || return 0

    local sudo=()
    if ((EUID != 0)); then
        command -v sudo >/dev/null || die "missing packages ${missing[*]}: install them (not root, no sudo)"
        sudo=(sudo)
    fi
    say "installing: ${missing[*]}$( ((want_hyperfine)) && echo ' hyperfine (if packaged)')"
    "${sudo[@]}" apt-get update -qq >&2
    if ((want_hyperfine)); then
        local candidate
        candidate="$(apt-cache policy hyperfine 2>/dev/null | awk '/Candidate:/ {print $2}')"
        if [[ -n "$candidate" && "$candidate" != "(none)" ]]; then
            missing+=(hyperfine)
        else
            say "hyperfine is not packaged here: timing with a Python loop instead"
        fi
    fi
    ((${#missing[@]})) || return 0
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
}

ensure_tools
[[ -d "$CORPUS" ]] || die "corpus $CORPUS not found"
[[ -f "$CORPUS/$CAT_PATH" ]] || die "$CORPUS/$CAT_PATH not found: set CAT_PATH to a file of the corpus"

if [[ -n "${WEBARC:-}" ]]; then
    [[ -x "$WEBARC" ]] || die "WEBARC=$WEBARC is not an executable"
    WEBARC="$(cd "$(dirname "$WEBARC")" && pwd)/$(basename "$WEBARC")"
    say "using WEBARC=$WEBARC (not building)"
else
    say "building webarc (release, static Swift stdlib)"
    (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib >&2)
    WEBARC="$REPO_ROOT/.build/release/webarc"
    [[ -x "$WEBARC" ]] || die "build did not produce $WEBARC"
fi

# --- workspace ---------------------------------------------------------------------------------

WORK="$(mktemp -d "${TMPDIR:-/tmp}/webarc-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

COPY="$WORK/corpus"             # symlinks resolved, for the peers
ARC="$WORK/site.webarc"
TLZ="$WORK/site.tar.lz4"
ZIP="$WORK/site.zip"
OUT="$WORK/out"
say "copying $CORPUS (symlinks resolved)"
cp -rL "$CORPUS" "$COPY"
FILES="$(find "$COPY" -type f | wc -l)"
BYTES="$(du -sb --apparent-size "$COPY" | cut -f1)"

if [[ -z "${NO_HYPERFINE:-}" ]] && command -v hyperfine >/dev/null; then
    TIMER="hyperfine $(hyperfine --version | awk '{print $2}')"
else
    TIMER="python3 perf_counter loop"
fi

q() { printf '%q' "$1"; }

# time_cmd NAME PREPARE COMMAND [shell|direct]: median and minimum seconds of RUNS runs after one
# warm-up, PREPARE run untimed before each (those that write end with `sync`, so no run pays for
# the write-back of the previous one). A shell command has the cost of starting the shell
# subtracted; a direct one (no pipes, redirections or cd) is started without a shell, which
# keeps millisecond figures such as `unzip -p` exact. Output of the timed commands is discarded.
declare -A MEDIAN MINIMUM
time_cmd() {
    local name="$1" prepare="$2" cmd="$3" mode="${4:-shell}" result
    if [[ "$TIMER" == hyperfine* ]]; then
        local opts=()
        if [[ "$mode" == direct ]]; then
            # --shell=none also runs --prepare without a shell: hand it one explicitly.
            opts+=(--shell=none)
            [[ -z "$prepare" ]] || prepare="sh -c '${prepare//\'/\'\\\'\'}'"
        fi
        [[ -z "$prepare" ]] || opts+=(--prepare "$prepare")
        hyperfine --style none --runs "$RUNS" --warmup 1 "${opts[@]}" \
            --export-json "$WORK/$name.json" "$cmd" >/dev/null
        result="$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["median"], r["min"])' \
            "$WORK/$name.json")"
    else
        result="$(python3 - "$RUNS" "$prepare" "$cmd" "$mode" <<'PY'
import shlex, statistics, subprocess, sys, time
runs, prepare, cmd, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def argv(c, shell):
    return ["/bin/sh", "-c", c] if shell else shlex.split(c)
def once(c, shell):
    args = argv(c, shell)
    t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t
spawn = statistics.median(once("true", True) for _ in range(20)) if mode == "shell" else 0.0
samples = []
for i in range(runs + 1):
    if prepare:
        subprocess.run(argv(prepare, True), check=True, stdout=subprocess.DEVNULL)
    s = once(cmd, mode == "shell")
    if i:  # run 0 is the warm-up
        samples.append(max(0.0, s - spawn))
print(statistics.median(samples), min(samples))
PY
)"
    fi
    MEDIAN[$name]="${result% *}"
    MINIMUM[$name]="${result#* }"
    say "$(printf '%-14s median %.4f s  min %.4f s' "$name" "${MEDIAN[$name]}" "${MINIMUM[$name]}")"
}

# peak_rss NAME COMMAND: "Maximum resident set size" of one run, in KiB.
declare -A RSS
peak_rss() {
    local name="$1" cmd="$2"
    /usr/bin/time -v -o "$WORK/$name.time" sh -c "$cmd" >/dev/null
    RSS[$name]="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/$name.time")"
    say "$(printf '%-14s peak RSS %s KiB' "$name" "${RSS[$name]}")"
}

# --- pack ----------------------------------------------------------------------------------------

say "pack ($RUNS runs each)"
# pack-webarc is started through the shell like its peers, which need one for the pipe and cd.
PACK_WEBARC="$(q "$WEBARC") pack $(q "$CORPUS") -o $(q "$ARC") --follow-outside --quiet"
PACK_TLZ="tar -cf - -C $(q "$COPY") . | lz4 -1 -q > $(q "$TLZ")"
PACK_ZIP="cd $(q "$COPY") && zip -qr $(q "$ZIP") ."
time_cmd pack-webarc "rm -f $(q "$ARC") && sync" "$PACK_WEBARC"
time_cmd pack-tlz "rm -f $(q "$TLZ") && sync" "$PACK_TLZ"
time_cmd pack-zip "rm -f $(q "$ZIP") && sync" "$PACK_ZIP"

rm -f "$ARC" "$TLZ" "$ZIP"
peak_rss pack-webarc "$PACK_WEBARC"
rm -f "$TLZ"; peak_rss pack-tlz "$PACK_TLZ"
rm -f "$ZIP"; peak_rss pack-zip "$PACK_ZIP"
for f in "$ARC" "$TLZ" "$ZIP"; do [[ -s "$f" ]] || die "$f was not written"; done
SIZE_WEBARC="$(stat -c %s "$ARC")"
SIZE_TLZ="$(stat -c %s "$TLZ")"
SIZE_ZIP="$(stat -c %s "$ZIP")"

# What whole-body dedup plus per-body LZ4 -1 weighs before any index: the sum of `lz4 -1` over
# each distinct file. A reference for the size goal, since tar | lz4 compresses across files.
say "per-file lz4 -1 over distinct files"
SIZE_PERFILE="$(find "$COPY" -type f -print0 | xargs -0 md5sum | sort -u -k1,1 | cut -c35- |
    while IFS= read -r f; do lz4 -1 -c -q "$f" | wc -c; done | awk '{s += $1} END {print s + 0}')"

# --- unpack --------------------------------------------------------------------------------------

say "unpack"
time_cmd unpack-webarc "rm -rf $(q "$OUT") && sync" "$(q "$WEBARC") unpack $(q "$ARC") -o $(q "$OUT") --quiet" direct
UNPACKED="$(find "$OUT" -type f 2>/dev/null | wc -l)"
((UNPACKED == FILES)) || say "warning: webarc unpack wrote $UNPACKED files, the corpus has $FILES"
time_cmd unpack-tlz "rm -rf $(q "$OUT") && mkdir $(q "$OUT") && sync" "lz4 -dc $(q "$TLZ") | tar -xf - -C $(q "$OUT")"
time_cmd unpack-zip "rm -rf $(q "$OUT") && sync" "unzip -q $(q "$ZIP") -d $(q "$OUT")" direct
rm -rf "$OUT"

# --- verify --------------------------------------------------------------------------------------

say "verify"
time_cmd verify-webarc "" "$(q "$WEBARC") verify $(q "$ARC") --quiet" direct
time_cmd verify-tlz "" "lz4 -tq $(q "$TLZ")" direct
time_cmd verify-zip "" "unzip -tq $(q "$ZIP")" direct

# --- one URL from a fresh process ----------------------------------------------------------------

say "one URL: $BASE_URL$CAT_PATH"
CAT_URL="$BASE_URL$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$CAT_PATH")"
if ! "$WEBARC" cat "$ARC" "$CAT_URL" | cmp -s - "$CORPUS/$CAT_PATH"; then
    say "warning: webarc cat $CAT_URL does not print the bytes of $CORPUS/$CAT_PATH"
fi
time_cmd cat-webarc "" "$(q "$WEBARC") cat $(q "$ARC") $(q "$CAT_URL")" direct
time_cmd cat-tlz "" "lz4 -dc $(q "$TLZ") | tar -xOf - $(q "./$CAT_PATH")"
time_cmd cat-zip "" "unzip -p $(q "$ZIP") $(q "$CAT_PATH")" direct

# --- report --------------------------------------------------------------------------------------

# One awk program formats every figure, so units and rounding are consistent.
fmt() {
    awk -v kind="$1" -v a="$2" -v b="${3:-}" -v goal="${4:-}" 'BEGIN {
        if (kind == "time") {
            if (a >= 1) printf "%.2f s", a; else if (a >= 0.01) printf "%.0f ms", a * 1000; else printf "%.1f ms", a * 1000
        } else if (kind == "bytes") {
            printf "%.1f MiB", a / 1048576
        } else if (kind == "kib") {
            printf "%.0f MiB", a / 1024
        } else if (kind == "ratio") {
            if (b + 0 == 0) { printf "n/a"; exit }
            printf "%.2f", a / b
        } else if (kind == "met") {
            if (b + 0 == 0) { printf "n/a"; exit }
            printf "%s", (a / b <= goal + 0) ? "yes" : "**no**"
        }
    }'
}

t() { fmt time "${MEDIAN[$1]}"; }

NOW="$(date '+%Y-%m-%d %H:%M:%S %z')"
STAMP="$(date '+%Y-%m-%d-%H%M%S')"
COMMIT="$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo 'no commit')"
[[ -z "$(git -C "$REPO_ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ]] || COMMIT="$COMMIT (Sources modified)"
CPU="$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)"

REPORT="$(cat <<EOF
# webarc pack benchmark, $NOW

Corpus: \`$CORPUS\` ($FILES files, $(fmt bytes "$BYTES")); webarc packs it with \`--follow-outside\`,
the peers pack a \`cp -rL\` copy. Times are medians of $RUNS runs after one warm-up ($TIMER),
pipes run in a shell whose start-up is subtracted. Machine: $(nproc) cores, $CPU, Linux $(uname -r), temp files on
$(findmnt -no FSTYPE -T "$WORK" 2>/dev/null || echo '?'). webarc: $COMMIT. Peers: lz4 $(lz4 -V 2>&1 | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^v[0-9]/) {sub(/,$/, "", $i); print $i; exit}}'),
$(tar --version | awk 'NR == 1'), Zip $(zip -v | awk 'NR == 2 {print $4}'), UnZip $(unzip -v | awk 'NR == 1 {print $2}').

| | webarc | tar \\| lz4 -1 | zip -r | webarc / tar\\|lz4 | webarc / zip | goal | met |
|---|---|---|---|---|---|---|---|
| pack | $(t pack-webarc) | $(t pack-tlz) | $(t pack-zip) | $(fmt ratio "${MEDIAN[pack-webarc]}" "${MEDIAN[pack-tlz]}") | $(fmt ratio "${MEDIAN[pack-webarc]}" "${MEDIAN[pack-zip]}") | ≤ 1 × tar\\|lz4 | $(fmt met "${MEDIAN[pack-webarc]}" "${MEDIAN[pack-tlz]}" 1) |
| archive size | $(fmt bytes "$SIZE_WEBARC") | $(fmt bytes "$SIZE_TLZ") | $(fmt bytes "$SIZE_ZIP") | $(fmt ratio "$SIZE_WEBARC" "$SIZE_TLZ") | $(fmt ratio "$SIZE_WEBARC" "$SIZE_ZIP") | ≤ 1 × .tar.lz4 | $(fmt met "$SIZE_WEBARC" "$SIZE_TLZ" 1) |
| size / corpus | $(fmt ratio "$SIZE_WEBARC" "$BYTES") | $(fmt ratio "$SIZE_TLZ" "$BYTES") | $(fmt ratio "$SIZE_ZIP" "$BYTES") | | | | |
| pack peak RSS | $(fmt kib "${RSS[pack-webarc]}") | $(fmt kib "${RSS[pack-tlz]}") | $(fmt kib "${RSS[pack-zip]}") | $(fmt ratio "${RSS[pack-webarc]}" "${RSS[pack-tlz]}") | $(fmt ratio "${RSS[pack-webarc]}" "${RSS[pack-zip]}") | | |
| unpack | $(t unpack-webarc) | $(t unpack-tlz) | $(t unpack-zip) | $(fmt ratio "${MEDIAN[unpack-webarc]}" "${MEDIAN[unpack-tlz]}") | $(fmt ratio "${MEDIAN[unpack-webarc]}" "${MEDIAN[unpack-zip]}") | | |
| verify (\`lz4 -t\`, \`unzip -t\`) | $(t verify-webarc) | $(t verify-tlz) | $(t verify-zip) | $(fmt ratio "${MEDIAN[verify-webarc]}" "${MEDIAN[verify-tlz]}") | $(fmt ratio "${MEDIAN[verify-webarc]}" "${MEDIAN[verify-zip]}") | ≤ 2 × lz4 -t | $(fmt met "${MEDIAN[verify-webarc]}" "${MEDIAN[verify-tlz]}" 2) |
| one URL, fresh process (\`cat\`, \`lz4 -dc \\| tar -xO\`, \`unzip -p\`) | $(t cat-webarc) | $(t cat-tlz) | $(t cat-zip) | $(fmt ratio "${MEDIAN[cat-webarc]}" "${MEDIAN[cat-tlz]}") | $(fmt ratio "${MEDIAN[cat-webarc]}" "${MEDIAN[cat-zip]}") | ≤ 1 × unzip -p | $(fmt met "${MEDIAN[cat-webarc]}" "${MEDIAN[cat-zip]}" 1) |

One URL: \`$CAT_URL\`. Minimum times (s): $(for k in pack-webarc pack-tlz pack-zip unpack-webarc unpack-tlz unpack-zip verify-webarc verify-tlz verify-zip cat-webarc cat-tlz cat-zip; do printf '%s %.4f; ' "$k" "${MINIMUM[$k]}"; done | sed 's/; $//').
Sizes (bytes): corpus $BYTES, webarc $SIZE_WEBARC, tar.lz4 $SIZE_TLZ, zip $SIZE_ZIP;
\`lz4 -1\` of each distinct file, summed (frames included): $SIZE_PERFILE ($(fmt bytes "$SIZE_PERFILE"), $(fmt ratio "$SIZE_PERFILE" "$SIZE_TLZ") × .tar.lz4).
EOF
)"

mkdir -p "$SCRIPT_DIR/results"
RESULT_FILE="$SCRIPT_DIR/results/pack-$STAMP.md"
printf '%s\n' "$REPORT" > "$RESULT_FILE"
printf '%s\n' "$REPORT"
say "written to ${RESULT_FILE#"$REPO_ROOT"/}"
