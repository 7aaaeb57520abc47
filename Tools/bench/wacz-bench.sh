#!/usr/bin/env bash
# WACZ benchmark: a real crawl of Debian's Python 3.11 docs (wget --warc-file against
# python3 -m http.server on 127.0.0.1), packed by py-wacz's `wacz create`, then:
#
#   import   webarc import CRAWL.wacz        vs  webarc import CRAWL.warc.gz (the same WARC, unzipped)
#   export   webarc export --format wacz     vs  webarc export --format warc (the WARC alone)
#
# Runs alternate A B A B …, RUNS each (default 9), after one warm-up of each; the table gives the
# medians and their ratios. Goal: WACZ import ≥ 1.0× the speed of importing its WARC unzipped
# (speed ratio = WARC time ÷ WACZ time). The WACZ webarc writes is checked once with
# `wacz validate`, and every record's body is compared after WACZ → webarc and WARC → webarc.
#
# Usage: Tools/bench/wacz-bench.sh   (WEBARC=binary, WORK=folder, RUNS=N; apt for wget and
# python3.11-doc when missing; PyPI for wacz, in a venv under WORK)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
source Tools/bench/lib.sh
WEBARC=${WEBARC:-$ROOT/.build/release/webarc}
WORK=${WORK:-/var/tmp/wacz-bench}
RUNS=${RUNS:-9}
DOCS=/usr/share/doc/python3.11/html

for pair in wget:wget "$DOCS/index.html:python3.11-doc"; do
    [[ -e "${pair%%:*}" ]] || command -v "${pair%%:*}" >/dev/null || Tools/install-packages.sh "${pair##*:}"
done
if [[ ! -x "$WEBARC" ]]; then
    swift build -c release --product webarc --static-swift-stdlib >&2
    WEBARC=$ROOT/.build/release/webarc
fi
mkdir -p "$WORK"
[[ -x "$WORK/venv/bin/wacz" ]] || { python3 -m venv "$WORK/venv" && "$WORK/venv/bin/pip" install --quiet wacz; }

SERVER=
cleanup() { [[ -n "$SERVER" ]] && kill "$SERVER" 2>/dev/null || true; }
trap cleanup EXIT
if [[ ! -s "$WORK/pydocs.wacz" ]]; then
    echo "crawling the Python docs" >&2
    port=$(free_port)
    (cd "$DOCS" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
    SERVER=$!
    wait_for "http://127.0.0.1:$port/"
    rm -rf "$WORK/crawl" "$WORK/pydocs.warc.gz"
    wget -r -l inf -np -q -e robots=off -P "$WORK/crawl" --warc-file="$WORK/pydocs" --no-warc-keep-log "http://127.0.0.1:$port/" || true
    kill "$SERVER"; SERVER=
    rm -rf "$WORK/crawl"
    (cd "$WORK" && venv/bin/wacz create -o pydocs.wacz pydocs.warc.gz --detect-pages >/dev/null)
fi
# The WARC as it is inside the WACZ, written back out: the baseline reads exactly those bytes.
python3 - "$WORK/pydocs.wacz" "$WORK/unzipped.warc.gz" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    name = next(n for n in z.namelist() if n.startswith("archive/"))
    open(sys.argv[2], "wb").write(z.read(name))
PY

# seconds COMMAND...: wall time of one run, from the shell's clock.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }'
}

import_wacz() { "$WEBARC" import "$WORK/pydocs.wacz" -o "$WORK/from-wacz.webarc" --force --quiet; }
import_warc() { "$WEBARC" import "$WORK/unzipped.warc.gz" -o "$WORK/from-warc.webarc" --force --quiet; }
export_wacz() { "$WEBARC" export "$WORK/from-warc.webarc" --format wacz -o "$WORK/out.wacz" --force --quiet; }
export_warc() { "$WEBARC" export "$WORK/from-warc.webarc" --format warc -o "$WORK/out.warc.gz" --force --quiet; }

echo "warming up" >&2
import_wacz; import_warc; export_wacz; export_warc
a=() b=() c=() d=()
for run in $(seq "$RUNS"); do
    echo "run $run of $RUNS" >&2
    a+=("$(seconds import_wacz)"); b+=("$(seconds import_warc)")
    c+=("$(seconds export_wacz)"); d+=("$(seconds export_warc)")
done
ma=$(median "${a[*]}") mb=$(median "${b[*]}") mc=$(median "${c[*]}") md=$(median "${d[*]}")

validated=$("$WORK/venv/bin/wacz" validate -f "$WORK/out.wacz" | tail -1)
# Every record with its status, length and MD5, both ways.
if cmp -s <("$WEBARC" ls "$WORK/from-wacz.webarc") <("$WEBARC" ls "$WORK/from-warc.webarc"); then same="identical records"; else same="RECORDS DIFFER"; fi

echo "| | WACZ | WARC | ratio |"
echo "|---|---|---|---|"
echo "| import (s, median of $RUNS) | $ma | $mb | speed $(ratio "$mb" "$ma")× (goal ≥ 1.0) |"
echo "| export (s, median of $RUNS) | $mc | $md | time $(ratio "$mc" "$md")× |"
echo "| sizes (bytes) | $(stat -c %s "$WORK/pydocs.wacz") (py-wacz), $(stat -c %s "$WORK/out.wacz") (webarc) | $(stat -c %s "$WORK/unzipped.warc.gz") | |"
echo
echo "webarc's WACZ: $validated; WACZ import vs WARC import: $same; load $(cut -d' ' -f1-3 /proc/loadavg)"
