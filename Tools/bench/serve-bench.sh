#!/usr/bin/env bash
# Serving benchmark: webarc serve vs nginx vs kiwix-serve on the Python docs, in one run, as ratios.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/serve-bench.sh [--duration SECONDS] [--connections N] [--rounds N] [--help]

Serves the Python 3.11 docs (Debian package python3.11-doc) three ways on 127.0.0.1, in one run:
  webarc serve   the docs packed with `webarc pack`
  nginx          the unpacked folder (sendfile, keep-alive, access log off)
  kiwix-serve    a ZIM of the folder made with zimwriterfs (--nosearchbar)
and drives each with wrk (2 threads, N connections, --latency): first one hot page (the start
page, index.html), then a mix of about 500 real paths (every k-th file of the sorted listing:
HTML, CSS, JS, images, reST sources) taken round-robin. Before timing, each server must answer every mixed
path with 200. The servers take turns, round after round, so that load from other work on the
machine falls on all of them alike. Reports the median over the rounds of requests/s and of
p50/p99 latency, non-2xx counts, server RSS before and after (nginx: master + workers), and the
ratios webarc/nginx and webarc/kiwix-serve of the medians, and the mixed ratio of each round
(neighbouring runs, so their spread shows the machine's noise). Prints a
Markdown table to stdout and writes it to Tools/bench/results/serve-<date>-<time>.md.
Progress goes to stderr. webarc and nginx run without access logs (kiwix-serve has none).

Options:
  --duration SECONDS   length of each wrk run (default: 10), after a 2 s warm-up run
  --connections N      wrk connections (default: 32)
  --rounds N           rounds of turns (default: 3)
  -h, --help           show this help

Environment:
  WEBARC=/path/to/webarc   use this binary instead of building `swift build -c release --product webarc --static-swift-stdlib`
                           in the repository (then .build/release/webarc)
  CORPUS=DIR               the site to serve (default: /usr/share/doc/python3.11/html)
  WORK=DIR                 keep the copied corpus, archive and ZIM here between runs
                           (default: a temporary folder removed on exit)
  WEBARC_PORTABLE=1        pack and serve in portable mode (no shared-memory body files or
                           sendfile, no AVX-512 lanes: README "Platforms"); webarc reads it itself

Missing tools (python3.11-doc nginx wrk zim-tools kiwix-tools curl) are installed through
Tools/install-packages.sh (apt-get update, then install; as root or through sudo).

Goals (from the issue), each printed as met or not under the table:
  mixed req/s   webarc / nginx at least 1.0
  mixed req/s   webarc / kiwix-serve at least 2.0 ("well ahead")
  p99 latency   webarc's hot and mixed p99 under 10 ms (the goal is stated at 32 connections)
wrk and the servers share the machine's cores: compare ratios from one run, never absolute
figures from different runs or machines.
EOF
}

DURATION=10
CONNECTIONS=32
ROUNDS=3
while (($#)); do
    case "$1" in
        --duration) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "serve-bench: error: --duration needs a positive integer" >&2; exit 64; }
            DURATION="$2"; shift 2 ;;
        --connections) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "serve-bench: error: --connections needs a positive integer" >&2; exit 64; }
            CONNECTIONS="$2"; shift 2 ;;
        --rounds) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "serve-bench: error: --rounds needs a positive integer" >&2; exit 64; }
            ROUNDS="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "serve-bench: error: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
CORPUS="${CORPUS:-/usr/share/doc/python3.11/html}"
say() { printf 'serve-bench: %s\n' "$*" >&2; }
die() { printf 'serve-bench: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$SCRIPT_DIR/lib.sh"

# --- tools -------------------------------------------------------------------------------------

missing=()
[[ "$CORPUS" == /usr/share/doc/python3.11/html && ! -d "$CORPUS" ]] && missing+=(python3.11-doc)
for pair in nginx:nginx wrk:wrk zimwriterfs:zim-tools kiwix-serve:kiwix-tools curl:curl; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
if ((${#missing[@]})); then
    "$REPO_ROOT/Tools/install-packages.sh" "${missing[@]}" || die "could not install ${missing[*]}"
fi
[[ -d "$CORPUS" ]] || die "no corpus at $CORPUS"

if [[ -z "${WEBARC:-}" ]]; then
    say "building webarc (release)"
    (cd "$REPO_ROOT" && swift build -c release --product webarc --static-swift-stdlib >&2) || die "swift build failed"
    WEBARC="$REPO_ROOT/.build/release/webarc"
fi
[[ -x "$WEBARC" ]] || die "no webarc binary at $WEBARC"

# --- corpus, archive, ZIM ------------------------------------------------------------------------

if [[ -z "${WORK:-}" ]]; then WORK="$(mktemp -d /tmp/serve-bench.XXXXXX)"; CLEAN_WORK=1; else CLEAN_WORK=0; mkdir -p "$WORK"; fi
# mktemp makes the folder 0700; nginx started as root serves through workers running as nobody,
# which would then get 403 for every file.
chmod 755 "$WORK"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    [[ -f "$WORK/nginx.pid" ]] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
    ((CLEAN_WORK)) && rm -rf "$WORK"
    return 0
}
trap cleanup EXIT INT TERM

SITE="$WORK/site"
if [[ ! -d "$SITE" ]]; then
    say "copying $CORPUS (cp -rL)"
    cp -rL "$CORPUS" "$SITE"
    # zimwriterfs wants a 48x48 PNG illustration inside the folder; the same file is served by all.
    python3 - "$SITE/webarc-bench-illustration.png" <<'PY'
import struct, sys, zlib
rows = b"".join(b"\0" + bytes([40, 90, 160]) * 48 for _ in range(48))
def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 48, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
fi
if [[ ! -f "$WORK/site.webarc" ]]; then
    say "packing with webarc"
    "$WEBARC" pack "$SITE" -o "$WORK/site.webarc" --quiet
fi
if [[ ! -f "$WORK/site.zim" ]]; then
    say "making the ZIM with zimwriterfs (about 30 s)"
    zimwriterfs --welcome=index.html --illustration=webarc-bench-illustration.png --language=eng \
        --title="Python 3.11 docs" --description="Python documentation" --creator=Python --publisher=webarc \
        --name=pydocs --withoutFTIndex "$SITE" "$WORK/site.zim" >/dev/null 2>&1 || die "zimwriterfs failed"
fi

HOT="index.html"
(cd "$SITE" && find . -type f ! -name webarc-bench-illustration.png | sed 's|^\./||' | LC_ALL=C sort) > "$WORK/all-paths.txt"
total=$(wc -l < "$WORK/all-paths.txt")
step=$(( total > 1000 ? total / 500 : 1 ))
awk -v step="$step" '(NR - 1) % step == 0' "$WORK/all-paths.txt" | grep -v ' ' > "$WORK/paths.txt"
say "$(wc -l < "$WORK/paths.txt") mixed paths (every ${step}th of $total files)"

# --- servers -------------------------------------------------------------------------------------

shm_kib() {   # bytes webarc holds in unlinked /dev/shm body files (not counted in RSS), in KiB
    local sum=0 fd size
    for fd in /proc/"$1"/fd/*; do
        [[ "$(readlink "$fd" 2>/dev/null)" == /dev/shm/webarc-* ]] || continue
        size=$(stat -L -c %s "$fd" 2>/dev/null || echo 0)
        sum=$((sum + size))
    done
    echo $((sum / 1024))
}

WEBARC_PORT=$(free_port)
"$WEBARC" serve "$WORK/site.webarc" --port "$WEBARC_PORT" --quiet > "$WORK/webarc.out" &
PIDS+=($!); WEBARC_PID=$!

NGINX_PORT=$(free_port)
write_nginx_conf "$WORK/nginx.conf" "$WORK" "$NGINX_PORT" "$SITE"
nginx -c "$WORK/nginx.conf" -p "$WORK" &
PIDS+=($!); NGINX_PID=$!

KIWIX_PORT=$(free_port)
kiwix-serve --address=127.0.0.1 --port="$KIWIX_PORT" --nosearchbar "$WORK/site.zim" > "$WORK/kiwix.log" 2>&1 &
PIDS+=($!); KIWIX_PID=$!

wait_for "http://127.0.0.1:$WEBARC_PORT/$HOT" || die "no answer from webarc serve"
wait_for "http://127.0.0.1:$NGINX_PORT/$HOT" || die "no answer from nginx"
KIWIX_PREFIX=""
# kiwix-serve names the book after the file (site.zim → site); 3.3 serves it at /site/, later
# versions at /content/site/.
for _ in $(seq 1 100); do
    for candidate in /site/ /content/site/ /site/A/; do
        if curl -fs -o /dev/null "http://127.0.0.1:$KIWIX_PORT$candidate$HOT"; then KIWIX_PREFIX="$candidate"; break 2; fi
    done
    sleep 0.1
done
[[ -n "$KIWIX_PREFIX" ]] || die "kiwix-serve does not answer $HOT under /site/, /content/site/ or /site/A/"

declare -A PREFIX=([webarc]="/" [nginx]="/" [kiwix]="$KIWIX_PREFIX")
declare -A PORT=([webarc]=$WEBARC_PORT [nginx]=$NGINX_PORT [kiwix]=$KIWIX_PORT)
server_pids() {
    case "$1" in
        webarc) echo "$WEBARC_PID" ;;
        nginx) echo "$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')" ;;
        kiwix) echo "$KIWIX_PID" ;;
    esac
}

for name in webarc nginx kiwix; do
    base="http://127.0.0.1:${PORT[$name]}${PREFIX[$name]}"
    bad=0
    while read -r path; do
        code=$(curl -s -o /dev/null -w '%{http_code}' "$base$path")
        [[ "$code" == 200 ]] || { bad=$((bad + 1)); ((bad <= 3)) && say "$name: $path gave $code"; }
    done < "$WORK/paths.txt"
    ((bad == 0)) || die "$name failed $bad of the mixed paths"
    make_lua "${PREFIX[$name]}" "$WORK/paths.txt" "$WORK/mixed-$name.lua"
done
say "every server answers all mixed paths with 200"

# --- runs ------------------------------------------------------------------------------------------

declare -A RPS P50 P99 NON2XX RSS_BEFORE RSS_AFTER
run_wrk() {   # $1 = server, $2 = hot|mixed, $3 = round; appends to the lists
    local name=$1 kind=$2 url="http://127.0.0.1:${PORT[$1]}${PREFIX[$1]}" args=() out non2xx
    if [[ $kind == hot ]]; then url="$url$HOT"; else args=(-s "$WORK/mixed-$name.lua"); fi
    wrk -t2 -c"$CONNECTIONS" -d2s "${args[@]}" "$url" > /dev/null
    out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "${args[@]}" "$url")
    echo "$out" > "$WORK/wrk-$name-$kind-$3.txt"
    RPS[$name-$kind]+=" $(awk '/^Requests\/sec:/ {printf "%.0f", $2}' <<<"$out")"
    P50[$name-$kind]+=" $(to_ms "$(awk '$1 == "50%" {print $2}' <<<"$out")")"
    P99[$name-$kind]+=" $(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")"
    non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")
    NON2XX[$name]=$(( ${NON2XX[$name]:-0} + ${non2xx:-0} ))
}

for name in webarc nginx kiwix; do RSS_BEFORE[$name]=$(rss_kib $(server_pids "$name")); done
for round in $(seq 1 "$ROUNDS"); do
    for name in webarc nginx kiwix; do
        for kind in hot mixed; do
            say "round $round/$ROUNDS: $name, $kind"
            run_wrk "$name" "$kind" "$round"
        done
    done
done
for name in webarc nginx kiwix; do RSS_AFTER[$name]=$(rss_kib $(server_pids "$name")); done
WEBARC_SHM=$(shm_kib "$WEBARC_PID")

# --- report ----------------------------------------------------------------------------------------

met() {   # $1 OP $2 → yes / no (n/a when unmeasured)
    awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN { if (a == "n/a" || a == "") { print "n/a"; exit }
        ok = (op == ">=") ? (a + 0 >= b + 0) : (a + 0 < b + 0); print ok ? "yes" : "no" }'
}
per_round() {   # $1, $2 = space-separated per-round figures → "r1 r2 … (k of N at least 1.0)"
    awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " "); met = 0; out = ""
        for (i = 1; i <= n; i++) { r = (y[i] > 0) ? x[i] / y[i] : 0; if (r >= 1) met++; out = out sprintf("%.2f ", r) }
        printf "%s(%d of %d at least 1.0)", out, met, n }'
}
mkdir -p "$SCRIPT_DIR/results"
REPORT="$SCRIPT_DIR/results/serve-$(date +%Y%m%d-%H%M%S).md"
hot_size=$(stat -c %s "$SITE/$HOT")
{
    echo "## Serving the Python docs ($(date -u +%Y-%m-%d), $(nproc) cores, wrk -t2 -c$CONNECTIONS -d${DURATION}s --latency, median of $ROUNDS rounds)"
    echo
    echo "Hot page: /$HOT ($hot_size bytes). Mixed: $(wc -l < "$WORK/paths.txt") real paths round-robin. RSS in MiB before → after the runs."
    echo
    echo "| server | hot req/s | hot p50 / p99 ms | mixed req/s | mixed p50 / p99 ms | non-2xx | RSS MiB |"
    echo "|---|---|---|---|---|---|---|"
    for name in webarc nginx kiwix; do
        label=$name; [[ $name == kiwix ]] && label=kiwix-serve
        echo "| $label | $(median "${RPS[$name-hot]}") | $(median "${P50[$name-hot]}") / $(median "${P99[$name-hot]}") | $(median "${RPS[$name-mixed]}") | $(median "${P50[$name-mixed]}") / $(median "${P99[$name-mixed]}") | ${NON2XX[$name]:-0} | $(mib "${RSS_BEFORE[$name]}") → $(mib "${RSS_AFTER[$name]}") |"
    done
    echo
    # webarc's median over each peer's, per kind of run.
    declare -A SHARE
    for peer in nginx kiwix; do
        for kind in hot mixed; do
            SHARE[$peer-$kind]=$(ratio "$(median "${RPS[webarc-$kind]}")" "$(median "${RPS[$peer-$kind]}")")
        done
    done
    mixed_nginx=${SHARE[nginx-mixed]}
    mixed_kiwix=${SHARE[kiwix-mixed]}
    echo "| ratio of medians | hot req/s | mixed req/s |"
    echo "|---|---|---|"
    echo "| webarc / nginx | ${SHARE[nginx-hot]} | $mixed_nginx |"
    echo "| webarc / kiwix-serve | ${SHARE[kiwix-hot]} | $mixed_kiwix |"
    echo
    worst_p99=$(awk -v a="$(median "${P99[webarc-hot]}")" -v b="$(median "${P99[webarc-mixed]}")" 'BEGIN { print (a > b) ? a : b }')
    p99_note=""; [[ $CONNECTIONS == 32 ]] || p99_note=" (measured at $CONNECTIONS connections, the goal is stated at 32)"
    echo "| goal | measured | target | met |"
    echo "|---|---|---|---|"
    echo "| mixed req/s at least nginx's | webarc / nginx $mixed_nginx | ≥ 1.0 | $(met "$mixed_nginx" ">=" 1.0) |"
    echo "| mixed req/s well ahead of kiwix-serve | webarc / kiwix-serve $mixed_kiwix | ≥ 2.0 | $(met "$mixed_kiwix" ">=" 2.0) |"
    echo "| p99 under 10 ms$p99_note | webarc worst p99 (hot, mixed) $worst_p99 ms | < 10 ms | $(met "$worst_p99" "<" 10) |"
    echo
    echo "webarc's hot-body cache also holds $(mib "$WEBARC_SHM") MiB in shared-memory files sent with sendfile (not in RSS; bounded by --cache-mib, like nginx's page cache is not in its RSS)."
    echo
    echo "Every run, req/s (hot; mixed): webarc${RPS[webarc-hot]};${RPS[webarc-mixed]} · nginx${RPS[nginx-hot]};${RPS[nginx-mixed]} · kiwix-serve${RPS[kiwix-hot]};${RPS[kiwix-mixed]}"
    echo
    # The same round's runs are neighbours in time, so their ratio shows how much of a median is noise.
    echo "Mixed webarc / nginx per round: $(per_round "${RPS[webarc-mixed]}" "${RPS[nginx-mixed]}")"
} | tee "$REPORT"
say "wrote $REPORT"
