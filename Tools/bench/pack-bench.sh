#!/usr/bin/env bash
# Compare webarc with tar|lz4, tar|zstd --long, zip and ZIM on three corpora, in one run, as ratios.
# See Tools/bench/README.md for what is measured and the goals (issue 11).
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/pack-bench.sh [--runs N] [--big-runs N] [--corpora LIST] [--help]

Builds three corpora reproducibly (Tools/bench/make_corpus.py): pydocs (Debian's python3.11-doc),
multi (4 releases of pydocs plus the Sphinx, Django, Flask and Jinja docs) and big (multi plus
1 GiB-scale incompressible media). On each it packs with webarc (default and --best), tar | lz4 -1,
tar | zstd -3 --long=27, and on pydocs zip -r and zimwriterfs; times pack, unpack, verify and (pydocs)
one file from a fresh process, webarc and its peer in turn (A B A B …, so that a change in the
machine's load falls on both alike); records sizes and peak memory. Prints a Markdown table of ratios
with the goals of issue 11 met or not to stdout and writes it to
Tools/bench/results/pack-<date>-<time>.md. Progress goes to stderr.

Options:
  --runs N        timed runs of each command on pydocs, after one warm-up (default: 15: on the
                  2-core VM, runs minutes apart spread by ±10 % and 5 gave medians up to 0.1 off
                  the ratio); multi takes min(N, 3)
  --big-runs N    timed runs of each command on big (default: min(N, 3); its commands take seconds)
  --corpora LIST  comma-separated subset of pydocs,multi,big (default: all three)
  -h, --help      show this help

Environment:
  WEBARC=/path/to/webarc   use this binary instead of building
                           `swift build -c release --static-swift-stdlib` in the repository
  CORPORA=DIR              where the corpora are built once and kept (default: /var/tmp/webarc-corpora)
  CAT_PATH=PATH            the file of pydocs looked up by the one-file test (default: library/functions.html)
  CAT_ARG=ARG              what webarc cat is given for it (default: CAT_PATH; a webarc older than
                           issue 11 needs the URL, http://localhost/CAT_PATH)
  NO_HYPERFINE=1           time with the Python loop even if hyperfine is installed
  NO_ZIM=1                 leave out zimwriterfs (about a minute on pydocs)
  BEST=FLAGS               what webarc pack is given for its smallest archive (default: --best; a
                           webarc older than issue 11 needs --level 12)
  WEBARC_PORTABLE=1        every webarc command runs in portable mode (no AVX-512 lanes, SHA-NI,
                           pinning, mallopt, sendfile: README "Platforms"), as webarc reads it; the
                           pack goal is then issue 39's (<= 1.5 x tar | lz4), the report says so and
                           is written as pack-portable-<date>-<time>.md

Missing tools (python3.11-doc sphinx-doc python-django-doc python-flask-doc python-jinja2-doc lz4
zstd zip unzip zim-tools hyperfine time, libcurl4-openssl-dev for the static build) are
installed with apt-get. Compare ratios taken in one run, never absolute figures from different
machines or runs.
EOF
}

RUNS=15
BIG_RUNS=""
CORPORA_LIST="pydocs,multi,big"
while (($#)); do
    case "$1" in
        --runs)
            [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "pack-bench: error: --runs needs a positive integer" >&2; exit 64; }
            RUNS="$2"; shift 2 ;;
        --runs=*)
            RUNS="${1#--runs=}"
            [[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "pack-bench: error: --runs needs a positive integer" >&2; exit 64; }
            shift ;;
        --big-runs)
            [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "pack-bench: error: --big-runs needs a positive integer" >&2; exit 64; }
            BIG_RUNS="$2"; shift 2 ;;
        --big-runs=*)
            BIG_RUNS="${1#--big-runs=}"
            [[ "$BIG_RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "pack-bench: error: --big-runs needs a positive integer" >&2; exit 64; }
            shift ;;
        --corpora)
            [[ $# -ge 2 ]] || { echo "pack-bench: error: --corpora needs a list" >&2; exit 64; }
            CORPORA_LIST="$2"; shift 2 ;;
        --corpora=*) CORPORA_LIST="${1#--corpora=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "pack-bench: error: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done
MULTI_RUNS=$((RUNS < 3 ? RUNS : 3))
BIG_RUNS="${BIG_RUNS:-$MULTI_RUNS}"
IFS=, read -r -a CORPUS_NAMES <<< "$CORPORA_LIST"
for name in "${CORPUS_NAMES[@]}"; do
    [[ "$name" =~ ^(pydocs|multi|big)$ ]] || { echo "pack-bench: error: unknown corpus '$name' (pydocs, multi, big)" >&2; exit 64; }
done

LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
CORPORA="${CORPORA:-/var/tmp/webarc-corpora}"
CAT_PATH="${CAT_PATH:-library/functions.html}"
CAT_ARG="${CAT_ARG:-$CAT_PATH}"
# webarc reads WEBARC_PORTABLE itself; the script only names the mode and its pack goal.
if [[ "${WEBARC_PORTABLE:-}" == 1 ]]; then
    MODE="portable (WEBARC_PORTABLE=1: no AVX-512 lanes, SHA-NI, pinning, mallopt or sendfile)"
    PACK_GOAL=1.5; RESULT_PREFIX=pack-portable
else
    MODE="fast paths (WEBARC_PORTABLE unset)"
    PACK_GOAL=0.6; RESULT_PREFIX=pack
fi

say() { printf 'pack-bench: %s\n' "$*" >&2; }
die() { printf 'pack-bench: error: %s\n' "$*" >&2; exit 1; }

# --- tools -------------------------------------------------------------------------------------

ensure_tools() {
    local missing=()
    [[ -d /usr/share/doc/python3.11/html ]] || missing+=(python3.11-doc)
    [[ -d /usr/share/doc/sphinx-doc/html ]] || missing+=(sphinx-doc)
    [[ -d /usr/share/doc/python-django-doc/html ]] || missing+=(python-django-doc)
    [[ -d /usr/share/doc/python-flask-doc/html ]] || missing+=(python-flask-doc)
    [[ -d /usr/share/doc/python-jinja2-doc/html ]] || missing+=(python-jinja2-doc)
    command -v lz4 >/dev/null || missing+=(lz4)
    command -v zstd >/dev/null || missing+=(zstd)
    command -v zip >/dev/null || missing+=(zip)
    command -v unzip >/dev/null || missing+=(unzip)
    [[ -n "${NO_ZIM:-}" ]] || command -v zimwriterfs >/dev/null || missing+=(zim-tools)
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

if [[ -n "${WEBARC:-}" ]]; then
    [[ -x "$WEBARC" ]] || die "WEBARC=$WEBARC is not an executable"
    WEBARC="$(cd "$(dirname "$WEBARC")" && pwd)/$(basename "$WEBARC")"
    say "using WEBARC=$WEBARC (not building)"
else
    say "building webarc (release, static Swift stdlib: the README's set-up build)"
    (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib >&2)
    WEBARC="$REPO_ROOT/.build/release/webarc"
    [[ -x "$WEBARC" ]] || die "build did not produce $WEBARC"
fi

# --- corpora -----------------------------------------------------------------------------------

# Built once into $CORPORA/NAME (a stamp names the generator's hash, so a changed generator rebuilds).
GENERATOR_HASH="$(sha256sum "$SCRIPT_DIR/make_corpus.py" | cut -c1-16)"
corpus() {
    local name="$1" dir="$CORPORA/$1"
    if [[ ! -f "$dir.stamp" || "$(cat "$dir.stamp")" != "$GENERATOR_HASH" ]]; then
        say "building corpus $name in $dir (once)"
        rm -rf "$dir" "$dir.stamp"
        mkdir -p "$CORPORA"
        python3 "$SCRIPT_DIR/make_corpus.py" "$name" "$dir" >&2
        echo "$GENERATOR_HASH" > "$dir.stamp"
    fi
    printf '%s' "$dir"
}

# --- workspace ---------------------------------------------------------------------------------

WORK="$(mktemp -d "${TMPDIR:-/tmp}/webarc-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Timed from a copy written in one go, as an installed binary is (or one read back from disk):
# the linker's own output file can sit in the page cache in small pieces, and the same bytes
# then start slower (a fresh `webarc cat` 3.0 ms against 2.3 ms from a copy, 2026-11-25).
cp "$WEBARC" "$WORK/webarc"
WEBARC="$WORK/webarc"

if [[ -z "${NO_HYPERFINE:-}" ]] && command -v hyperfine >/dev/null; then
    TIMER="hyperfine $(hyperfine --version | awk '{print $2}')"
else
    TIMER="python3 perf_counter loop"
fi

q() { printf '%q' "$1"; }

# once NAME PREPARE COMMAND [shell|direct]: times COMMAND once, PREPARE run untimed before it
# (those that write end with `sync`, so no run pays for the write-back of the previous one), and
# appends the seconds to NAME's samples (none for a warm-up, NAME "-"). A shell command has the
# cost of starting the shell subtracted; a direct one (no pipes, redirections or cd) is started
# without a shell, which keeps millisecond figures exact. Output of the timed command is discarded.
declare -A MEDIAN MINIMUM SAMPLES
SPAWN=""
once() {
    local name="$1" prepare="$2" cmd="$3" mode="${4:-shell}" seconds
    if [[ "$TIMER" == hyperfine* ]]; then
        local opts=()
        if [[ "$mode" == direct ]]; then
            # --shell=none also runs --prepare without a shell: hand it one explicitly.
            opts+=(--shell=none)
            [[ -z "$prepare" ]] || prepare="sh -c '${prepare//\'/\'\\\'\'}'"
        fi
        [[ -z "$prepare" ]] || opts+=(--prepare "$prepare")
        hyperfine --style none --runs 1 --warmup 0 "${opts[@]}" --export-json "$WORK/once.json" "$cmd" >/dev/null
        seconds="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["times"][0])' "$WORK/once.json")"
    else
        if [[ "$mode" == shell && -z "$SPAWN" ]]; then
            SPAWN="$(python3 -c 'import statistics, subprocess, time
def once():
    t = time.perf_counter(); subprocess.run(["/bin/sh", "-c", "true"], check=True); return time.perf_counter() - t
print(statistics.median(once() for _ in range(20)))')"
        fi
        seconds="$(python3 - "$prepare" "$cmd" "$mode" "${SPAWN:-0}" <<'PY'
import shlex, subprocess, sys, time
prepare, cmd, mode, spawn = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
if prepare:
    subprocess.run(["/bin/sh", "-c", prepare], check=True, stdout=subprocess.DEVNULL)
args = ["/bin/sh", "-c", cmd] if mode == "shell" else shlex.split(cmd)
t = time.perf_counter()
subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
print(max(0.0, time.perf_counter() - t - (spawn if mode == "shell" else 0.0)))
PY
)"
    fi
    [[ "$name" == - ]] || SAMPLES[$name]+="$seconds "
}

# summarize NAME: MEDIAN and MINIMUM of NAME's samples, printed to stderr.
summarize() {
    local name="$1" result
    result="$(tr ' ' '\n' <<<"${SAMPLES[$name]}" | grep -v '^$' | sort -g \
        | awk '{a[NR] = $1} END {print ((NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[1], NR}')"
    read -r MEDIAN[$name] MINIMUM[$name] _ <<<"$result"
    say "$(printf '%-22s median %.4f s  min %.4f s  (n=%s)' "$name" "${MEDIAN[$name]}" "${MINIMUM[$name]}" "${result##* }")"
}

# time_cmd NAME RUNS PREPARE COMMAND [shell|direct]: median and minimum of RUNS runs after one
# warm-up (none when RUNS is 1), for a command without a peer in the table.
time_cmd() {
    local name="$1" runs="$2" prepare="$3" cmd="$4" mode="${5:-shell}" i
    ((runs == 1)) || once - "$prepare" "$cmd" "$mode"
    for ((i = 0; i < runs; i++)); do once "$name" "$prepare" "$cmd" "$mode"; done
    summarize "$name"
}

# time_pair RUNS NAME PREPARE COMMAND MODE PEER_NAME PEER_PREPARE PEER_COMMAND PEER_MODE: webarc
# and its peer in turn (A B A B …: a warm-up of each when RUNS > 1, then RUNS of each), so that a
# change in the machine's load falls on both alike; medians and minimums as time_cmd.
time_pair() {
    local runs="$1" i
    shift
    if ((runs > 1)); then
        once - "$2" "$3" "$4"
        once - "$6" "$7" "$8"
    fi
    for ((i = 0; i < runs; i++)); do
        once "$1" "$2" "$3" "$4"
        once "$5" "$6" "$7" "$8"
    done
    summarize "$1"
    summarize "$5"
}

# peak_rss NAME COMMAND: "Maximum resident set size" of one run (the largest process), in KiB.
declare -A RSS
peak_rss() {
    local name="$1" cmd="$2"
    /usr/bin/time -v -o "$WORK/${name//\//-}.time" sh -c "$cmd" >/dev/null
    RSS[$name]="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/${name//\//-}.time")"
    say "$(printf '%-22s peak RSS %s KiB' "$name" "${RSS[$name]}")"
}

declare -A SIZE FILES BYTES

# bench_corpus NAME: every measurement of one corpus, keys prefixed NAME/.
bench_corpus() {
    local c="$1" dir runs
    dir="$(corpus "$c")"
    case "$c" in pydocs) runs="$RUNS" ;; multi) runs="$MULTI_RUNS" ;; big) runs="$BIG_RUNS" ;; esac
    FILES[$c]="$(find "$dir" -type f | wc -l)"
    BYTES[$c]="$(du -sb --apparent-size "$dir" | cut -f1)"
    say "== $c: ${FILES[$c]} files, ${BYTES[$c]} bytes, $runs run(s) per command"
    local arc="$WORK/$c.webarc" best="$WORK/$c.best.webarc" tlz="$WORK/$c.tar.lz4" tzst="$WORK/$c.tar.zst"
    local zip="$WORK/$c.zip" zim="$WORK/$c.zim" out="$WORK/out"

    local pack_webarc pack_best pack_tlz pack_tzst pack_zip
    pack_webarc="$(q "$WEBARC") pack $(q "$dir") -o $(q "$arc") --quiet"
    pack_best="$(q "$WEBARC") pack $(q "$dir") -o $(q "$best") ${BEST:---best} --quiet"
    pack_tlz="tar -cf - -C $(q "$dir") . | lz4 -1 -q > $(q "$tlz")"
    pack_tzst="tar -cf - -C $(q "$dir") . | zstd -3 --long=27 -q > $(q "$tzst")"
    pack_zip="cd $(q "$dir") && zip -qr $(q "$zip") ."
    say "pack"
    time_pair "$runs" "$c/pack-webarc" "rm -f $(q "$arc") && sync" "$pack_webarc" direct \
        "$c/pack-tlz" "rm -f $(q "$tlz") && sync" "$pack_tlz" shell
    rm -f "$arc" "$tlz"
    peak_rss "$c/pack-webarc" "$pack_webarc"
    peak_rss "$c/pack-tlz" "$pack_tlz"
    rm -f "$tzst"; time_cmd "$c/pack-tzst" 1 "" "$pack_tzst"
    if [[ "$c" != big ]]; then
        rm -f "$best"; time_cmd "$c/pack-best" 1 "" "$pack_best" direct
        SIZE[$c/best]="$(stat -c %s "$best")"
    fi
    if [[ "$c" == pydocs ]]; then
        rm -f "$zip"; time_cmd "$c/pack-zip" 1 "" "$pack_zip"
        SIZE[$c/zip]="$(stat -c %s "$zip")"
        if [[ -z "${NO_ZIM:-}" ]]; then
            # zimwriterfs wants a 48×48 PNG inside the folder: a hard-linked copy gets one.
            rm -rf "$WORK/zimdir"; cp -al "$dir" "$WORK/zimdir"
            python3 -c 'import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
raw = b"".join(b"\0" + b"\x33\x66\x99" * 48 for _ in range(48))
sys.stdout.buffer.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 48, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))' > "$WORK/zimdir/webarc-bench-illustration.png"
            time_cmd "$c/pack-zim" 1 "rm -f $(q "$zim")" "zimwriterfs -j -w index.html -I webarc-bench-illustration.png -l eng -t pydocs -d bench -c bench -p bench $(q "$WORK/zimdir") $(q "$zim")" direct
            SIZE[$c/zim]="$(stat -c %s "$zim")"
            rm -rf "$WORK/zimdir"
        fi
    fi
    for f in "$arc" "$tlz" "$tzst"; do [[ -s "$f" ]] || die "$f was not written"; done
    SIZE[$c/webarc]="$(stat -c %s "$arc")"
    SIZE[$c/tlz]="$(stat -c %s "$tlz")"
    SIZE[$c/tzst]="$(stat -c %s "$tzst")"

    say "unpack"
    local unpacked
    rm -rf "$out"
    "$WEBARC" unpack "$arc" -o "$out" --quiet
    unpacked="$(find "$out" -type f 2>/dev/null | wc -l)"
    ((unpacked == FILES[$c])) || say "warning: webarc unpack wrote $unpacked files, the corpus has ${FILES[$c]}"
    time_pair "$runs" "$c/unpack-webarc" "rm -rf $(q "$out") && sync" "$(q "$WEBARC") unpack $(q "$arc") -o $(q "$out") --quiet" direct \
        "$c/unpack-tlz" "rm -rf $(q "$out") && mkdir $(q "$out") && sync" "lz4 -dc $(q "$tlz") | tar -xf - -C $(q "$out")" shell
    rm -rf "$out"

    say "verify"
    time_pair "$runs" "$c/verify-webarc" "" "$(q "$WEBARC") verify $(q "$arc") --quiet" direct \
        "$c/verify-tlz" "" "lz4 -tq $(q "$tlz")" direct
    peak_rss "$c/verify-webarc" "$(q "$WEBARC") verify $(q "$arc") --quiet"

    if [[ "$c" == pydocs ]]; then
        say "one file: $CAT_PATH"
        "$WEBARC" cat "$arc" "$CAT_ARG" | cmp -s - "$dir/$CAT_PATH" || say "warning: webarc cat ARCHIVE $CAT_ARG does not print the bytes of $dir/$CAT_PATH"
        time_pair $((RUNS * 4)) "$c/cat-webarc" "" "$(q "$WEBARC") cat $(q "$arc") $(q "$CAT_ARG")" direct \
            "$c/cat-zip" "" "unzip -p $(q "$zip") $(q "$CAT_PATH")" direct
    fi
    rm -f "$arc" "$best" "$tlz" "$tzst" "$zip" "$zim"
}

for c in "${CORPUS_NAMES[@]}"; do bench_corpus "$c"; done

# --- report --------------------------------------------------------------------------------------

# One awk program formats every figure, so units and rounding are consistent.
fmt() {
    awk -v kind="$1" -v a="$2" -v b="${3:-}" -v goal="${4:-}" 'BEGIN {
        if (a == "" || (kind != "time" && kind != "bytes" && kind != "kib" && b == "")) { printf "–"; exit }
        if (kind == "time") {
            if (a >= 1) printf "%.2f s", a; else if (a >= 0.01) printf "%.0f ms", a * 1000; else printf "%.1f ms", a * 1000
        } else if (kind == "bytes") {
            printf "%.1f MiB", a / 1048576
        } else if (kind == "kib") {
            printf "%.0f MiB", a / 1024
        } else if (kind == "ratio") {
            if (b + 0 == 0) { printf "n/a"; exit }
            printf "%.2f", a / b
        }
    }'
}

# goal_row LABEL A B GOAL [UNIT]: one table row: the ratio A/B per corpus, the goal, and met.
ROWS=""
MET=0
MISSED=0
row() {
    local label="$1" goal="$2" kind="$3"; shift 3
    local line="| $label |" all_met=1 any=0
    for c in "${CORPUS_NAMES[@]}"; do
        local a b cell
        a="$(eval "echo \"\${$1[\$c]:-}\"" 2>/dev/null)"; b="$(eval "echo \"\${$2[\$c]:-}\"" 2>/dev/null)"
        if [[ -z "$a" || -z "$b" ]]; then line+=" – |"; continue; fi
        any=1
        if [[ "$kind" == ratio ]]; then
            cell="$(fmt ratio "$a" "$b")"
            if [[ -n "$goal" ]] && ! awk -v r="$cell" -v g="$goal" 'BEGIN {exit !(r + 0 <= g + 0)}'; then all_met=0; cell="**$cell**"; fi
        else
            cell="$(fmt kib "$a")"
            if [[ -n "$goal" ]] && ! awk -v r="$a" -v g="$goal" 'BEGIN {exit !(r / 1024 <= g + 0)}'; then all_met=0; cell="**$cell**"; fi
        fi
        line+=" $cell |"
    done
    if [[ -z "$goal" ]]; then
        line+=" | |"
    elif ((any)); then
        if ((all_met)); then line+=" $( [[ "$kind" == ratio ]] && echo "≤ $goal" || echo "≤ $goal MiB") | yes |"; MET=$((MET + 1))
        else line+=" $( [[ "$kind" == ratio ]] && echo "≤ $goal" || echo "≤ $goal MiB") | **no** |"; MISSED=$((MISSED + 1)); fi
    else
        line+=" | |"
    fi
    ROWS+="$line"$'\n'
}

# Per-corpus arrays for row(): each names a figure by corpus.
declare -A P_W P_T P_RSS V_RSS S_W S_T S_B S_Z S_ZIM S_TZ U_W U_T V_W V_T C_W C_Z S_ZIMP S_BP
for c in "${CORPUS_NAMES[@]}"; do
    P_W[$c]="${MEDIAN[$c/pack-webarc]}"; P_T[$c]="${MEDIAN[$c/pack-tlz]}"
    P_RSS[$c]="${RSS[$c/pack-webarc]}"; V_RSS[$c]="${RSS[$c/verify-webarc]}"
    S_W[$c]="${SIZE[$c/webarc]}"; S_T[$c]="${SIZE[$c/tlz]}"; S_TZ[$c]="${SIZE[$c/tzst]}"
    U_W[$c]="${MEDIAN[$c/unpack-webarc]}"; U_T[$c]="${MEDIAN[$c/unpack-tlz]}"
    V_W[$c]="${MEDIAN[$c/verify-webarc]}"; V_T[$c]="${MEDIAN[$c/verify-tlz]}"
done
[[ -z "${SIZE[pydocs/best]:-}" ]] || S_BP[pydocs]="${SIZE[pydocs/best]}"
[[ -z "${SIZE[pydocs/zim]:-}" ]] || S_ZIMP[pydocs]="${SIZE[pydocs/zim]}"
[[ -z "${SIZE[multi/best]:-}" ]] || S_B[multi]="${SIZE[multi/best]}"
[[ -z "${MEDIAN[pydocs/cat-webarc]:-}" ]] || { C_W[pydocs]="${MEDIAN[pydocs/cat-webarc]}"; C_Z[pydocs]="${MEDIAN[pydocs/cat-zip]}"; }

row "pack, webarc ÷ \`tar \\| lz4 -1\` (wall)" "$PACK_GOAL" ratio P_W P_T
row "pack peak RSS (webarc)" 64 kib P_RSS P_RSS
row "size, webarc ÷ tar.lz4" 1.0 ratio S_W S_T
row "size, webarc ÷ \`tar \\| zstd -3 --long=27\`" "" ratio S_W S_TZ
row "size, \`--best\` ÷ ZIM (zimwriterfs)" 1.3 ratio S_BP S_ZIMP
row "size, \`--best\` ÷ \`tar \\| zstd -3 --long=27\`" 1.0 ratio S_B S_TZ
row "unpack, webarc ÷ \`lz4 -d \\| tar x\`" 1.0 ratio U_W U_T
row "verify, webarc ÷ \`lz4 -t\`" 1.5 ratio V_W V_T
row "verify peak RSS (webarc)" 64 kib V_RSS V_RSS
row "one file, fresh process, \`webarc cat\` ÷ \`unzip -p\`" 1.0 ratio C_W C_Z

NOW="$(date '+%Y-%m-%d %H:%M:%S %z')"
STAMP="$(date '+%Y-%m-%d-%H%M%S')"
COMMIT="$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo 'no commit')"
[[ -z "$(git -C "$REPO_ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ]] || COMMIT="$COMMIT (Sources modified)"
CPU="$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)"
HEADER="| | $(for c in "${CORPUS_NAMES[@]}"; do printf '%s | ' "$c"; done)goal | met |
|---|$(for c in "${CORPUS_NAMES[@]}"; do printf -- '---|'; done)---|---|"

figures() {
    local c="$1" k
    printf -- '- **%s** (%s files, %s): ' "$c" "${FILES[$c]}" "$(fmt bytes "${BYTES[$c]}")"
    for k in pack-webarc pack-tlz pack-tzst pack-best pack-zip pack-zim unpack-webarc unpack-tlz verify-webarc verify-tlz cat-webarc cat-zip; do
        [[ -z "${MEDIAN[$c/$k]:-}" ]] || printf '%s %s; ' "$k" "$(fmt time "${MEDIAN[$c/$k]}")"
    done
    for k in webarc best tlz tzst zip zim; do
        [[ -z "${SIZE[$c/$k]:-}" ]] || printf 'size %s %s; ' "$k" "$(fmt bytes "${SIZE[$c/$k]}")"
    done
    printf 'peak RSS pack webarc %s, tar|lz4 %s, verify webarc %s\n' "$(fmt kib "${RSS[$c/pack-webarc]}")" \
        "$(fmt kib "${RSS[$c/pack-tlz]}")" "$(fmt kib "${RSS[$c/verify-webarc]}")"
}

REPORT="$(cat <<EOF
# webarc pack benchmark, $NOW

Corpora built by \`Tools/bench/make_corpus.py\` (every tool packs the same folder). Times are
medians ($TIMER) of $RUNS runs on pydocs, $MULTI_RUNS on multi, $BIG_RUNS on big, after one warm-up where
there is more than one run, webarc and its peer in turn (A B A B …); pipes run in a shell whose
start-up is subtracted. Machine: $(nproc)
cores, $CPU, Linux $(uname -r), load average at the start $LOAD_START, at the end $(cut -d' ' -f1-3 /proc/loadavg). webarc:
$COMMIT, mode: $MODE. Peers: lz4 $(lz4 -V 2>&1 | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^v[0-9]/) {sub(/,$/, "", $i); print $i; exit}}'), zstd $(zstd -V | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^v[0-9]/) {sub(/,$/, "", $i); print $i; exit}}'),
$(tar --version | awk 'NR == 1'), Zip $(zip -v | awk 'NR == 2 {print $4}'), UnZip $(unzip -v | awk 'NR == 1 {print $2}'), $(zimwriterfs --version 2>/dev/null | awk 'NR == 1' || echo 'no zimwriterfs') (\`-j\`, no full-text index).
Goals of issue 11 (in portable mode, pack's is issue 39's): bold figures miss theirs.

$HEADER
$ROWS
Goals met: $MET, missed: $MISSED. Figures:

$(for c in "${CORPUS_NAMES[@]}"; do figures "$c"; done)
EOF
)"

mkdir -p "$SCRIPT_DIR/results"
RESULT_FILE="$SCRIPT_DIR/results/$RESULT_PREFIX-$STAMP.md"
printf '%s\n' "$REPORT" > "$RESULT_FILE"
printf '%s\n' "$REPORT"
say "written to ${RESULT_FILE#"$REPO_ROOT"/}"
