#!/usr/bin/env bash
# Remote bench: webarc reading an archive in place from nginx over HTTPS through an injected delay.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/remote-bench.sh [--rtts "0 20 80"] [--loads N] [--runs N] [--help]

Packs the Python 3.11 docs (Debian package python3.11-doc) and puts the archive and the unpacked
folder behind nginx on 127.0.0.1 (HTTPS with the test certificate of
Tests/WebArcRemoteTests/Fixtures, HTTP/2, sendfile, real Range support), reached through
Tools/bench/delay_proxy.py, which adds a round-trip delay (each RTT of --rtts, in ms; tc netem
is not available in containers). For each delay it measures:

  open + one cold URL   `webarc cat https://…/site.webarc http://localhost/index.html` in a fresh
                        process, with WEBARC_TRACE_HTTP=1: requests, bytes, dependent request
                        rounds (requests that overlap in time are one round), the body's own
                        request, and wall time
  page load             headless Chromium (Tools/bench/page_timing.py, HTTP cache off, a fresh
                        tab per load): time to first byte and load event of index.html through
                        `webarc serve https://…/site.webarc` (started fresh: the first load is
                        cold, the later ones warm) against nginx serving the unpacked folder
                        through the same delay (first load cold: new connections)
  verify vs download    `webarc verify https://…/site.webarc` against
                        `curl -o /dev/null https://…/site.webarc`, median of --runs

Prints a Markdown table to stdout and writes it to Tools/bench/results/remote-<date>-<time>.md.

Options:
  --rtts "LIST"   round-trip delays in ms (default: "0 20 80")
  --loads N       page loads per server and delay (default: 4: one cold, the rest warm)
  --runs N        runs of verify and curl per delay (default: 3)
  -h, --help      show this help

Environment:
  WEBARC=/path/to/webarc   use this binary instead of building `swift build -c release`
  CORPUS=DIR               the site (default: /usr/share/doc/python3.11/html)
  WORK=DIR                 keep the copied corpus and archive here between runs

Goals (from the issue): open + one cold URL in at most 3 dependent request rounds and at most
64 KiB beyond the body; warm page load at most 1.2x nginx; verify at most 1.5x curl.
EOF
}

RTTS="0 20 80"
LOADS=4
RUNS=3
while (($#)); do
    case "$1" in
        --rtts) [[ $# -ge 2 ]] || { echo "remote-bench: error: --rtts needs a list" >&2; exit 64; }; RTTS="$2"; shift 2 ;;
        --loads) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "remote-bench: error: --loads needs a positive integer" >&2; exit 64; }
            LOADS="$2"; shift 2 ;;
        --runs) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "remote-bench: error: --runs needs a positive integer" >&2; exit 64; }
            RUNS="$2"; shift 2 ;;
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
    (cd "$REPO_ROOT" && swift build -c release --product webarc >&2) || die "swift build failed"
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
PIDS+=($!)
wait_for "https://127.0.0.1:$NGINX_PORT/site/index.html"

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
seconds() { local start end; start=$(date +%s.%N); "$@" > /dev/null 2>&1 || return 1; end=$(date +%s.%N); echo "$end - $start" | bc -l; }

export SSL_CERT_FILE="$CERT"
ROWS_OPEN=()
ROWS_PAGE=()
ROWS_VERIFY=()
GOALS=()
for rtt in $RTTS; do
    PROXY_PORT=$(free_port)
    python3 "$SCRIPT_DIR/delay_proxy.py" --listen "$PROXY_PORT" --target "$NGINX_PORT" --rtt-ms "$rtt" 2> "$WORK/proxy-$rtt.log" &
    PROXY_PID=$!; PIDS+=($PROXY_PID)
    BASE="https://127.0.0.1:$PROXY_PORT"
    wait_for "$BASE/site/index.html"
    say "RTT $rtt ms"

    # Open + one cold URL, traced.
    start=$(date +%s.%N)
    WEBARC_TRACE_HTTP=1 "$WEBARC" cat "$BASE/site.webarc" "$PAGE_URL" > "$WORK/cat.out" 2> "$WORK/trace-$rtt.txt" || die "cat over HTTP failed: $(tail -3 "$WORK/trace-$rtt.txt")"
    end=$(date +%s.%N)
    cmp -s "$WORK/cat.out" "$WORK/page.html" || die "cat over HTTP gave other bytes"
    read -r requests bytes rounds body_bytes < <(python3 - "$WORK/trace-$rtt.txt" <<'PY'
import re, sys
spans = []
for line in open(sys.argv[1]):
    m = re.search(r"-> (\d+), (\d+) bytes, at ([\d.]+) ms, took ([\d.]+) ms", line)
    if m:
        spans.append((float(m.group(3)), float(m.group(3)) + float(m.group(4)), int(m.group(2))))
spans.sort()
rounds, end = 0, -1.0
for start, finish, _ in spans:
    if start >= end:
        rounds += 1
        end = finish
    else:
        end = max(end, finish)
print(len(spans), sum(s[2] for s in spans), rounds, spans[-1][2] if spans else 0)
PY
)
    wall=$(echo "($end - $start) * 1000" | bc -l)
    beyond=$((bytes - body_bytes))
    ROWS_OPEN+=("| $rtt | $requests | $rounds | $bytes | $body_bytes | $beyond | $(printf '%.0f' "$wall") |")

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

    # verify (one sequential download, checked as it arrives) vs curl of the same file.
    v_times=""; c_times=""
    for _ in $(seq 1 "$RUNS"); do
        v_times+=" $(seconds "$WEBARC" verify "$BASE/site.webarc" --quiet || die "verify over HTTP failed")"
        c_times+=" $(seconds curl -fsS --cacert "$CERT" -o /dev/null "$BASE/site.webarc" || die "curl failed")"
    done
    v=$(echo "$v_times" | median); c=$(echo "$c_times" | median)
    vratio=$(echo "$v / $c" | bc -l)
    ROWS_VERIFY+=("| $rtt | $(printf '%.2f' "$v") | $(printf '%.2f' "$c") | $(printf '%.2f' "$vratio") |")
    GOALS+=("RTT $rtt ms: rounds $rounds (goal <= 3): $([[ $rounds -le 3 ]] && echo met || echo NOT met); beyond the body $beyond B (goal <= 65536): $([[ $beyond -le 65536 ]] && echo met || echo NOT met); warm load $(printf '%.2f' "$ratio")x nginx (goal <= 1.2): $(awk -v r="$ratio" 'BEGIN { print (r <= 1.2 ? "met" : "NOT met") }'); verify $(printf '%.2f' "$vratio")x curl (goal <= 1.5): $(awk -v r="$vratio" 'BEGIN { print (r <= 1.5 ? "met" : "NOT met") }')")

    kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true
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
    echo "Page load of index.html in headless Chromium, TTFB / load event in ms (cold: first load; warm: median of the rest):"
    echo
    echo "| RTT ms | webarc serve URL cold | webarc warm | nginx folder cold | nginx warm | warm load webarc/nginx | failed loads webarc / nginx |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS_PAGE[@]}"
    echo
    echo "\`webarc verify URL\` vs \`curl -o /dev/null URL\` (seconds, median of $RUNS):"
    echo
    echo "| RTT ms | webarc verify | curl | ratio |"
    echo "|---|---|---|---|"
    printf '%s\n' "${ROWS_VERIFY[@]}"
    echo
    printf -- '- %s\n' "${GOALS[@]}"
} | tee "$RESULT"
say "written to $RESULT"
