#!/usr/bin/env bash
# Refresh benchmark (issue 15): how much a refresh asks, fetches and ships when a site changes a
# little, against re-capturing it and against `wget --mirror` (which revalidates with
# If-Modified-Since too). One run, on Debian's Python 3.11 docs served by nginx on 127.0.0.1.
#
#   release 1: the docs as installed;  release 2: PAGES_EDITED pages given one added line (new
#   mtime), one page deleted, one page added.
#
# For each tool: requests the origin saw for the second pass, how many were answered 304, body
# bytes the origin sent (nginx's $body_bytes_sent), and what has to be shipped: webarc's update
# archive, a full new archive from `webarc capture`, or the files wget rewrote.
#
# Usage: Tools/bench/refresh-bench.sh   (WEBARC=binary, WORK=folder, PAGES_EDITED=5; needs root
# or sudo for apt when nginx, wget or python3.11-doc are missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
WEBARC=${WEBARC:-$ROOT/.build/release/webarc}
WORK=${WORK:-/tmp/refresh-bench}
EDITED=${PAGES_EDITED:-5}
PORT=${PORT:-18777}
DOCS=/usr/share/doc/python3.11/html

for pair in nginx:nginx wget:wget "$DOCS/index.html:python3.11-doc"; do
    [[ -e "${pair%%:*}" ]] || command -v "${pair%%:*}" >/dev/null || Tools/install-packages.sh "${pair##*:}"
done
[[ -x "$WEBARC" ]] || { echo "no webarc binary at $WEBARC: swift build -c release --product webarc --static-swift-stdlib" >&2; exit 1; }

rm -rf "$WORK"; mkdir -p "$WORK"; chmod 755 "$WORK"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

echo "making the two releases" >&2
cp -rL "$DOCS" "$WORK/v1"
find "$WORK/v1" -exec touch -d '2025-01-01 00:00:00' {} +
cp -a "$WORK/v1" "$WORK/v2"
mapfile -t pages < <(cd "$WORK/v2" && find . -name '*.html' | sort | awk 'NR % 97 == 3' | head -n "$EDITED")
for page in "${pages[@]}"; do
    python3 - "$WORK/v2/$page" <<'PY'
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
middle = text.index("\n", len(text) // 2)
open(path, "w", encoding="utf-8").write(text[:middle] + "\n<p>Added in release 2.</p>" + text[middle:])
PY
done
deleted=$(cd "$WORK/v2" && find . -name '*.html' | sort | awk 'NR == 500')
rm "$WORK/v2/$deleted"
echo '<!DOCTYPE html><title>New</title><h1>New in release 2</h1>' > "$WORK/v2/whatsnew-release2.html"
touch -d '2025-06-01 00:00:00' "$WORK/v2/whatsnew-release2.html" "${pages[@]/#/$WORK/v2/}"
ln -sfn "$WORK/v1" "$WORK/live"

cat > "$WORK/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
daemon off;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    log_format bench '\$status \$body_bytes_sent \$request_method \$uri';
    access_log $WORK/access.log bench;
    client_body_temp_path $WORK/nginx-temp;
    proxy_temp_path $WORK/nginx-temp;
    fastcgi_temp_path $WORK/nginx-temp;
    uwsgi_temp_path $WORK/nginx-temp;
    scgi_temp_path $WORK/nginx-temp;
    server { listen 127.0.0.1:$PORT; root $WORK/live; etag on; }
}
EOF
nginx -c "$WORK/nginx.conf" -p "$WORK" & PIDS+=($!)
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/index.html" && break; sleep 0.1; done
ORIGIN="http://127.0.0.1:$PORT/"

# Counts the log lines after line $1: requests, 304s, body bytes.
counts() { tail -n +"$(($1 + 1))" "$WORK/access.log" | awk '{ n++; if ($1 == 304) m++; if ($3 == "HEAD") h++; b += $2 } END { printf "%d %d %d %d", n, m, b, h }'; }
mark() { wc -l < "$WORK/access.log"; }

echo "first pass on release 1" >&2
"$WEBARC" pack "$WORK/v1" -o "$WORK/packed-v1.webarc" -q
"$WEBARC" capture "${ORIGIN}index.html" --depth 20 --same-origin -o "$WORK/capture-v1.webarc" --json > "$WORK/capture-v1.json" 2>/dev/null || true
(cd "$WORK" && wget -q --mirror --no-host-directories -P wget-mirror "${ORIGIN}index.html" || true)

ln -sfn "$WORK/v2" "$WORK/live"
echo "second pass on release 2" >&2
start=$(mark)
"$WEBARC" refresh "$WORK/packed-v1.webarc" -o "$WORK/refresh-packed.webarc" --origin "http://localhost/=$ORIGIN" --json > "$WORK/refresh-packed.json"
read -r packed_requests packed_304 packed_bytes _ <<<"$(counts "$start")"
start=$(mark)
"$WEBARC" refresh "$WORK/capture-v1.webarc" -o "$WORK/refresh-capture.webarc" --json > "$WORK/refresh-capture.json"
read -r captured_requests captured_304 captured_bytes _ <<<"$(counts "$start")"
start=$(mark)
"$WEBARC" capture "${ORIGIN}index.html" --depth 20 --same-origin -o "$WORK/capture-v2.webarc" --json > /dev/null 2>&1 || true
read -r recapture_requests recapture_304 recapture_bytes _ <<<"$(counts "$start")"
start=$(mark)
(cd "$WORK" && wget -q --mirror --no-host-directories -P wget-mirror "${ORIGIN}index.html" || true)
read -r wget_requests wget_304 wget_bytes _ <<<"$(counts "$start")"
# wget 1.21 does not recurse into a page answered 304 (it has no new copy to parse), so its
# If-Modified-Since pass stops at the start page; its older mode asks HEAD for every file instead.
start=$(mark)
(cd "$WORK" && wget -q --mirror --no-if-modified-since --no-host-directories -P wget-mirror "${ORIGIN}index.html" || true)
read -r head_requests head_304 head_bytes head_heads <<<"$(counts "$start")"

size() { stat -c %s "$1" 2>/dev/null || echo 0; }
changed_bytes=$(for page in "${pages[@]}" whatsnew-release2.html; do stat -c %s "$WORK/v2/$page"; done | awk '{ s += $1 } END { print s }')
"$WEBARC" pack "$WORK/v2" -o "$WORK/packed-v2.webarc" -q

echo
echo "## Refresh after a small release ($EDITED pages edited, 1 deleted, 1 added; $(find "$WORK/v1" -type f | wc -l) files)"
echo
echo "| second pass | requests | answered 304 | body bytes fetched | to ship |"
echo "|---|---|---|---|---|"
echo "| webarc refresh (packed archive, --origin) | $packed_requests | $packed_304 | $packed_bytes | update $(size "$WORK/refresh-packed.webarc") B |"
echo "| webarc refresh (captured archive) | $captured_requests | $captured_304 | $captured_bytes | update $(size "$WORK/refresh-capture.webarc") B |"
echo "| webarc capture again | $recapture_requests | $recapture_304 | $recapture_bytes | archive $(size "$WORK/capture-v2.webarc") B |"
echo "| wget --mirror again (If-Modified-Since) | $wget_requests | $wget_304 | $wget_bytes | $wget_requests files asked (it stops at the first 304) |"
echo "| wget --mirror --no-if-modified-since (HEAD each file) | $head_requests ($head_heads HEAD) | $head_304 | $head_bytes | $((head_requests - head_heads)) files fetched again |"
echo
echo "Changed files: $changed_bytes B. Full archives: packed v2 $(size "$WORK/packed-v2.webarc") B, captured v1 $(size "$WORK/capture-v1.webarc") B."
echo "webarc refresh summaries: packed $(cat "$WORK/refresh-packed.json"); captured $(cat "$WORK/refresh-capture.json")"
