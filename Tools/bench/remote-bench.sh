#!/usr/bin/env bash
# Remote bench: webarc reading an archive in place from nginx over HTTPS through an injected delay.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/remote-bench.sh [--rtts "0 20 80"] [--loads N] [--runs N] [--no-s3] [--help]

Packs the Python 3.11 docs (Debian package python3.11-doc) and puts the archive and the unpacked
folder behind nginx on 127.0.0.1 (HTTPS with the test certificate of
Tests/WebArcRemoteTests/Fixtures, HTTP/2, sendfile, real Range support), reached through
Tools/bench/delay_proxy.py, which adds a round-trip delay (each RTT of --rtts, in ms; tc netem
is not available in containers). For each delay it measures:

  open + one cold URL   `webarc cat https://…/site.webarc http://localhost/index.html` in a fresh
                        process, with WEBARC_TRACE_HTTP=1: requests, bytes, dependent request
                        rounds (a request sent after an answer of its round came back opens
                        the next: trace_rounds.py), the body's own
                        request, and wall time
  page load             headless Chromium (Tools/bench/page_timing.py, HTTP cache off, a fresh
                        tab per load): time to first byte and load event of index.html through
                        `webarc serve https://…/site.webarc` (started fresh: the first load is
                        cold, the later ones warm) against nginx serving the unpacked folder
                        through the same delay (first load cold: new connections)
  open + one query      `webarc search https://…/site.webarc QUERY --json` in a fresh process, traced
                        the same way, for a query of each kind (words, a common word, a phrase, a
                        prefix): requests, dependent rounds, bytes, hits, wall time
  verify vs download    `webarc verify https://…/site.webarc` (one stream from byte 0 and the
                        last MiB, in the first round trip) against
                        `curl -o /dev/null https://…/site.webarc`, median of --runs

When moto_server is installed (`pip install 'moto[server]'`), the archive is also put as a
public-read object into moto's S3-compatible server on 127.0.0.1 (plain HTTP, through the same
delay) and open + one cold URL and verify vs curl are measured against it too.

Prints a Markdown table to stdout and writes it to Tools/bench/results/remote-<date>-<time>.md.

Options:
  --rtts "LIST"   round-trip delays in ms (default: "0 20 80")
  --loads N       page loads per server and delay (default: 4: one cold, the rest warm)
  --runs N        runs of verify and curl per delay (default: 3)
  --no-s3         skip the moto S3 rows even when moto_server is installed
  -h, --help      show this help

Environment:
  WEBARC=/path/to/webarc   use this binary instead of building `swift build -c release --product webarc --static-swift-stdlib`
  CORPUS=DIR               the site (default: /usr/share/doc/python3.11/html)
  WORK=DIR                 keep the copied corpus and archive here between runs

Goals (from the issue): open + one cold URL in at most 3 dependent request rounds and at most
64 KiB beyond the body; a query (open included) in at most 3 dependent rounds and 256 KiB (the
search issue); warm page load at most 1.2x nginx; verify at most 1.5x curl.
EOF
}

RTTS="0 20 80"
LOADS=4
RUNS=3
S3=1
while (($#)); do
    case "$1" in
        --rtts) [[ $# -ge 2 ]] || { echo "remote-bench: error: --rtts needs a list" >&2; exit 64; }; RTTS="$2"; shift 2 ;;
        --loads) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "remote-bench: error: --loads needs a positive integer" >&2; exit 64; }
            LOADS="$2"; shift 2 ;;
        --runs) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "remote-bench: error: --runs needs a positive integer" >&2; exit 64; }
            RUNS="$2"; shift 2 ;;
        --no-s3) S3=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "remote-bench: error: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
CORPUS="${CORPUS:-/usr/share/doc/python3.11/html}"
CERT="$REPO_ROOT/Tests/WebArcRemoteTests/Fixtures/test-cert.pem"
KEY="$REPO_ROOT/Tests/WebArcRemoteTests/Fixtures/test-key.pem"
say() { printf 'remote-bench: %s\n' "$*" >&2; }
die() { printf 'remote-bench: error: %s\n' "$*" >&2; exit 1; }

missing=()
[[ "$CORPUS" == /usr/share/doc/python3.11/html && ! -d "$CORPUS" ]] && missing+=(python3.11-doc)
for pair in nginx:nginx curl:curl chromium:chromium; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
if ((${#missing[@]})); then
    "$REPO_ROOT/Tools/install-packages.sh" "${missing[@]}" || die "could not install ${missing[*]}"
fi
if [[ -z "${WEBARC:-}" ]]; then
    say "building webarc (release)"
    # --static-swift-stdlib: the static `webarc` links only objects built against the static
    # standard library (a `.build` last built without it fails to link; Tools/sample.sh).
    (cd "$REPO_ROOT" && swift build -c release --product webarc --static-swift-stdlib >&2) || die "swift build failed"
    WEBARC="$REPO_ROOT/.build/release/webarc"
fi
[[ -x "$WEBARC" ]] || die "no webarc binary at $WEBARC"

if [[ -z "${WORK:-}" ]]; then WORK="$(mktemp -d /tmp/remote-bench.XXXXXX)"; CLEAN_WORK=1; else CLEAN_WORK=0; mkdir -p "$WORK"; fi
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

mkdir -p "$WORK/www"
if [[ ! -d "$WORK/www/site" ]]; then say "copying $CORPUS (cp -rL)"; cp -rL "$CORPUS" "$WORK/www/site"; fi
if [[ ! -f "$WORK/www/site.webarc" ]]; then say "packing"; "$WEBARC" pack "$WORK/www/site" -o "$WORK/www/site.webarc" --quiet; fi
ARCHIVE_BYTES=$(stat -c %s "$WORK/www/site.webarc")
PAGE_URL="http://localhost/index.html"
"$WEBARC" cat "$WORK/www/site.webarc" "$PAGE_URL" > "$WORK/page.html" || die "the archive has no $PAGE_URL"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 1 100); do curl -fsk -o /dev/null "$1" && return 0; sleep 0.1; done; die "no answer from $1"; }

NGINX_PORT=$(free_port)
mkdir -p "$WORK/nginx-temp"
cat > "$WORK/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
daemon off;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    log_format ranges '\$request_uri \$status \$body_bytes_sent "\$http_range"';
    access_log $WORK/access.log ranges;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path $WORK/nginx-temp;
    proxy_temp_path $WORK/nginx-temp;
    fastcgi_temp_path $WORK/nginx-temp;
    uwsgi_temp_path $WORK/nginx-temp;
    scgi_temp_path $WORK/nginx-temp;
    server {
        # Debian 12's nginx 1.22 takes http2 as a listen parameter (1.25 has "http2 on").
        listen 127.0.0.1:$NGINX_PORT ssl http2;
        ssl_certificate $CERT;
        ssl_certificate_key $KEY;
        root $WORK/www;
    }
}
EOF
nginx -c "$WORK/nginx.conf" -p "$WORK" &
NGINX_PID=$!
PIDS+=($NGINX_PID)
wait_for "https://127.0.0.1:$NGINX_PORT/site/index.html"

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# Open + one cold URL in a fresh traced process: prints requests, dependent rounds, bytes, the
# body's own request bytes, bytes beyond the body, wall ms.
measure_open() {
    local url="$1" trace="$2" start end
    start=$(date +%s.%N)
    WEBARC_TRACE_HTTP=1 "$WEBARC" cat "$url" "$PAGE_URL" > "$WORK/cat.out" 2> "$trace" || die "cat over HTTP failed: $(tail -3 "$trace")"
    end=$(date +%s.%N)
    cmp -s "$WORK/cat.out" "$WORK/page.html" || die "cat over HTTP gave other bytes"
    echo "$(python3 "$SCRIPT_DIR/trace_rounds.py" "$trace") $(printf '%.0f' "$(echo "($end - $start) * 1000" | bc -l)")"
}

# Open + one query in a fresh traced process (`webarc search URL QUERY --json`, its snippets
# included): prints requests, dependent rounds, bytes, hits, wall ms.
measure_search() {
    local url="$1" query="$2" trace="$3" start end hits
    start=$(date +%s.%N)
    WEBARC_TRACE_HTTP=1 "$WEBARC" search "$url" "$query" --json > "$WORK/search.out" 2> "$trace" \
        || die "search over HTTP failed for $query: $(tail -3 "$trace")"
    end=$(date +%s.%N)
    hits=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$WORK/search.out")
    read -r requests rounds bytes _ _ < <(python3 "$SCRIPT_DIR/trace_rounds.py" "$trace")
    echo "$requests $rounds $bytes $hits $(printf '%.0f' "$(echo "($end - $start) * 1000" | bc -l)")"
}

# CPU time (ms) used so far by the given processes, all their threads (utime + stime).
TICKS=$(getconf CLK_TCK)
proc_cpu_ms() {
    local total=0 pid
    for pid in "$@"; do
        [[ -r "/proc/$pid/stat" ]] || continue
        total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
    done
    echo $((total * 1000 / TICKS))
}

# Runs a command and prints its wall seconds and the CPU seconds (user + system) it used.
timed() {
    local TIMEFORMAT='%R %U %S' times
    times=$( { time "$@" > /dev/null 2>&1; } 2>&1 ) || return 1
    awk '{ printf "%s %.4f\n", $1, $2 + $3 }' <<< "$times"
}

# verify URL vs curl of the same file, median of RUNS, with the CPU each run took: its own and
# that of the serving processes given (server and delay proxy), which share this machine's cores.
# Prints verify s, curl s, ratio, verify CPU ms, curl CPU ms, serving CPU ms in a verify run and
# in a curl run, and the floor ratio: (verify's CPU + its serving CPU) / cores, over curl's wall.
measure_verify() {
    local url="$1"; shift
    local v_times="" c_times="" v_cpus="" c_cpus="" v_serving=0 c_serving=0 before wall cpu v c
    for _ in $(seq 1 "$RUNS"); do
        before=$(proc_cpu_ms "$@")
        read -r wall cpu < <(timed "$WEBARC" verify "$url" --quiet || echo fail) || true
        [[ "$wall" != fail ]] || die "verify over HTTP failed"
        v_serving=$((v_serving + $(proc_cpu_ms "$@") - before))
        v_times+=" $wall"; v_cpus+=" $cpu"
        before=$(proc_cpu_ms "$@")
        read -r wall cpu < <(timed curl -fsS --cacert "$CERT" -o /dev/null "$url" || echo fail) || true
        [[ "$wall" != fail ]] || die "curl failed"
        c_serving=$((c_serving + $(proc_cpu_ms "$@") - before))
        c_times+=" $wall"; c_cpus+=" $cpu"
    done
    v=$(echo "$v_times" | median); c=$(echo "$c_times" | median)
    local v_cpu c_cpu
    v_cpu=$(echo "$v_cpus" | median); c_cpu=$(echo "$c_cpus" | median)
    awk -v v="$v" -v c="$c" -v vc="$v_cpu" -v cc="$c_cpu" -v vs="$v_serving" -v cs="$c_serving" -v runs="$RUNS" -v cores="$(nproc)" 'BEGIN {
        vs /= runs; cs /= runs
        printf "%.2f %.2f %.2f %.0f %.0f %.0f %.0f %.2f\n", v, c, v / c, vc * 1000, cc * 1000, vs, cs, (vc * 1000 + vs) / cores / (c * 1000)
    }'
}

goal() { awk -v v="$1" -v g="$2" 'BEGIN { print (v <= g ? "met" : "NOT met") }'; }

# The S3-compatible object server: moto on 127.0.0.1, the archive as a public-read object.
S3_PORT=""
S3_VERSION=""
if ((S3)) && command -v moto_server >/dev/null 2>&1; then
    S3_PORT=$(free_port)
    moto_server -H 127.0.0.1 -p "$S3_PORT" > "$WORK/moto.log" 2>&1 &
    MOTO_PID=$!
    PIDS+=($MOTO_PID)
    for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$S3_PORT/" && break; sleep 0.2; done
    say "putting the archive into moto (S3) on port $S3_PORT"
    python3 "$SCRIPT_DIR/s3_put.py" "http://127.0.0.1:$S3_PORT" bench site.webarc "$WORK/www/site.webarc" > /dev/null \
        || die "could not put the archive into moto: $(tail -3 "$WORK/moto.log")"
    S3_VERSION=$(python3 -c 'import moto; print(moto.__version__)')
elif ((S3)); then
    say "moto_server not installed (pip install 'moto[server]'): no S3 rows"
fi

export SSL_CERT_FILE="$CERT"
ROWS_S3=()
ROWS_OPEN=()
ROWS_PAGE=()
ROWS_VERIFY=()
ROWS_SEARCH=()
GOALS=()
# One query of each kind (words, a common word, a phrase, a prefix), from search-queries.tsv.
SEARCH_QUERIES=("json dumps" "python" '"reading and writing files"' "asyn*")
for rtt in $RTTS; do
    PROXY_PORT=$(free_port)
    python3 "$SCRIPT_DIR/delay_proxy.py" --listen "$PROXY_PORT" --target "$NGINX_PORT" --rtt-ms "$rtt" 2> "$WORK/proxy-$rtt.log" &
    PROXY_PID=$!; PIDS+=($PROXY_PID)
    BASE="https://127.0.0.1:$PROXY_PORT"
    wait_for "$BASE/site/index.html"
    say "RTT $rtt ms"

    # Open + one cold URL, traced.
    read -r requests rounds bytes body_bytes beyond wall < <(measure_open "$BASE/site.webarc" "$WORK/trace-$rtt.txt")
    ROWS_OPEN+=("| $rtt | $requests | $rounds | $bytes | $body_bytes | $beyond | $wall |")

    # Open + one query, a fresh process each (issue 38: <= 3 rounds, <= 256 KiB, open included).
    worst_rounds=0; worst_bytes=0
    for query in "${SEARCH_QUERIES[@]}"; do
        read -r requests q_rounds q_bytes hits wall < <(measure_search "$BASE/site.webarc" "$query" "$WORK/trace-search-$rtt.txt")
        ROWS_SEARCH+=("| $rtt | \`$query\` | $hits | $requests | $q_rounds | $q_bytes | $wall |")
        ((q_rounds > worst_rounds)) && worst_rounds=$q_rounds
        ((q_bytes > worst_bytes)) && worst_bytes=$q_bytes
    done
    GOALS+=("RTT $rtt ms: search, open included: at most $worst_rounds rounds (goal <= 3): $(goal "$worst_rounds" 3); at most $worst_bytes B (goal <= 262144): $(goal "$worst_bytes" 262144)")

    # Page loads: webarc serve (fresh, reading through the delay) and nginx (through the delay).
    SERVE_PORT=$(free_port)
    "$WEBARC" serve "$BASE/site.webarc" --port "$SERVE_PORT" --quiet > "$WORK/serve.out" 2> "$WORK/serve.err" &
    SERVE_PID=$!; PIDS+=($SERVE_PID)
    for _ in $(seq 1 200); do [[ -s "$WORK/serve.out" ]] && break; sleep 0.05; done
    [[ -s "$WORK/serve.out" ]] || die "webarc serve did not start: $(cat "$WORK/serve.err")"
    python3 "$SCRIPT_DIR/page_timing.py" --loads "$LOADS" "http://127.0.0.1:$SERVE_PORT/index.html" > "$WORK/pages-webarc-$rtt.jsonl"
    kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true
    python3 "$SCRIPT_DIR/page_timing.py" --loads "$LOADS" "$BASE/site/index.html" > "$WORK/pages-nginx-$rtt.jsonl"
    read -r w_cold_ttfb w_cold_load w_warm_ttfb w_warm_load w_failed n_cold_ttfb n_cold_load n_warm_ttfb n_warm_load n_failed < <(python3 - "$WORK/pages-webarc-$rtt.jsonl" "$WORK/pages-nginx-$rtt.jsonl" <<'PY'
import json, statistics, sys
out = []
for path in sys.argv[1:]:
    loads = [json.loads(line) for line in open(path)]
    warm = loads[1:] or loads
    out += [loads[0]["ttfbMs"], loads[0]["loadMs"], statistics.median(l["ttfbMs"] for l in warm),
            statistics.median(l["loadMs"] for l in warm), sum(l["failed"] + (0 if l["loaded"] else 1) for l in loads)]
print(" ".join(f"{v:.1f}" if isinstance(v, float) else str(v) for v in out))
PY
)
    ratio=$(echo "$w_warm_load / $n_warm_load" | bc -l)
    ROWS_PAGE+=("| $rtt | $w_cold_ttfb / $w_cold_load | $w_warm_ttfb / $w_warm_load | $n_cold_ttfb / $n_cold_load | $n_warm_ttfb / $n_warm_load | $(printf '%.2f' "$ratio") | $w_failed / $n_failed |")

    # verify (each byte downloaded once, checked as it arrives) vs curl of the same file.
    read -r v c vratio v_cpu c_cpu v_serving c_serving floor < <(measure_verify "$BASE/site.webarc" "$PROXY_PID" "$NGINX_PID" $(pgrep -P "$NGINX_PID"))
    ROWS_VERIFY+=("| $rtt | $v | $c | $vratio | $v_cpu / $v_serving | $c_cpu / $c_serving | $floor |")
    GOALS+=("RTT $rtt ms: rounds $rounds (goal <= 3): $(goal "$rounds" 3); beyond the body $beyond B (goal <= 65536): $(goal "$beyond" 65536); warm load $(printf '%.2f' "$ratio")x nginx (goal <= 1.2): $(goal "$ratio" 1.2); verify ${vratio}x curl (goal <= 1.5): $(goal "$vratio" 1.5)")

    kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true

    if [[ -n "$S3_PORT" ]]; then
        PROXY_PORT=$(free_port)
        python3 "$SCRIPT_DIR/delay_proxy.py" --listen "$PROXY_PORT" --target "$S3_PORT" --rtt-ms "$rtt" 2> "$WORK/proxy-s3-$rtt.log" &
        PROXY_PID=$!; PIDS+=($PROXY_PID)
        S3_URL="http://127.0.0.1:$PROXY_PORT/bench/site.webarc"
        wait_for "$S3_URL"
        read -r requests rounds bytes body_bytes s3_beyond wall < <(measure_open "$S3_URL" "$WORK/trace-s3-$rtt.txt")
        read -r v c s3_vratio v_cpu c_cpu v_serving c_serving floor < <(measure_verify "$S3_URL" "$PROXY_PID" "$MOTO_PID")
        ROWS_S3+=("| $rtt | $requests | $rounds | $bytes | $s3_beyond | $wall | $v | $c | $s3_vratio | $v_cpu / $v_serving | $c_cpu / $c_serving | $floor |")
        GOALS+=("S3 (moto) RTT $rtt ms: rounds $rounds (goal <= 3): $(goal "$rounds" 3); beyond the body $s3_beyond B (goal <= 65536): $(goal "$s3_beyond" 65536); verify ${s3_vratio}x curl (goal <= 1.5): $(goal "$s3_vratio" 1.5)")
        kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true
    fi
done

mkdir -p "$SCRIPT_DIR/results"
RESULT="$SCRIPT_DIR/results/remote-$(date +%Y%m%d-%H%M%S).md"
{
    echo "## Remote bench: $(basename "$CORPUS") archive ($ARCHIVE_BYTES bytes) over HTTPS from nginx through delay_proxy.py"
    echo
    echo "Open + one cold URL (\`webarc cat URL $PAGE_URL\`, fresh process):"
    echo
    echo "| RTT ms | requests | dependent rounds | bytes | body request bytes | bytes beyond the body | wall ms |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS_OPEN[@]}"
    echo
    echo "Open + one query (\`webarc search URL QUERY --json\`, ten hits with their snippets, fresh process):"
    echo
    echo "| RTT ms | query | hits | requests | dependent rounds | bytes | wall ms |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS_SEARCH[@]}"
    echo
    echo "Page load of index.html in headless Chromium, TTFB / load event in ms (cold: first load; warm: median of the rest):"
    echo
    echo "| RTT ms | webarc serve URL cold | webarc warm | nginx folder cold | nginx warm | warm load webarc/nginx | failed loads webarc / nginx |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS_PAGE[@]}"
    echo
    echo "\`webarc verify URL\` vs \`curl -o /dev/null URL\` (seconds, median of $RUNS):"
    echo
    echo "| RTT ms | webarc verify | curl | ratio | CPU ms per verify: webarc / nginx + proxy | CPU ms per curl: curl / nginx + proxy | CPU floor ÷ curl |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS_VERIFY[@]}"
    echo
    echo "CPU floor: the CPU of a verify run, webarc's and the serving processes' (which share this machine's $(nproc) cores), divided by the cores and by curl's wall time: the ratio verify could reach with every core busy from start to end. Where it exceeds 1.5, the goal is out of reach on this machine whatever webarc does with its time."
    if ((${#ROWS_S3[@]})); then
        echo
        echo "The same archive as a public-read object in moto $S3_VERSION (S3-compatible, plain HTTP) through the same delay: open + one cold URL, and verify vs curl (s, median of $RUNS):"
        echo
        echo "| RTT ms | requests | dependent rounds | bytes | bytes beyond the body | wall ms | webarc verify | curl | ratio | CPU ms per verify: webarc / moto + proxy | CPU ms per curl: curl / moto + proxy | CPU floor ÷ curl |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
        printf '%s\n' "${ROWS_S3[@]}"
    fi
    echo
    printf -- '- %s\n' "${GOALS[@]}"
} | tee "$RESULT"
say "written to $RESULT"
