#!/usr/bin/env bash
# Scale benchmark: every command on generated wiki-like sites of 10 k to 1 M pages, against its peer
# in the same run; prints the growth table (time per page and peak RSS per size) and the ratios.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/scale-bench.sh [--sizes "10k 100k 300k 1M"] [--duration SECONDS] [--only LIST]
                                  [--serve-paths N] [--help]

For each size N, generates (Tools/bench/wiki-gen, seed 1, cached in $WORK) a wiki-like site of
N pages and its next release with 1 % of the pages edited, then times, with /usr/bin/time
(wall seconds and peak RSS), webarc against its peer in the same run, one after the other:

  pack           webarc pack SITE -o A.webarc        tar -cf - -C SITE . | lz4 -1 > A.tar.lz4
                 webarc pack SITE --no-search        (the container alone, without the search index)
  size           bytes of A.webarc                   bytes of A.tar.lz4
  verify         webarc verify A.webarc              lz4 -t A.tar.lz4
  info           webarc info A.webarc (ms)           -
  unpack         webarc unpack A.webarc -o OUT       lz4 -dc A.tar.lz4 | tar -xf - -C OUT
  pack release 2 webarc pack SITE2 -o B.webarc       (the goal of diff is this time)
  diff           webarc diff A B -o U.webarc         zstd -3 --long=31 --patch-from=A.tar B.tar
  diff --compact webarc diff A B --compact           (its size against the zstd patch)
  apply          webarc apply A U.webarc -o B2       cp B.webarc C.webarc && sync
                 webarc apply A U.webarcu -o B3      (the compact update; both must give B byte for byte)
  serve start    ms from start to the first 200 of / -
  serve          wrk -t2 -c32 over 2 000 random page paths (--serve-paths): webarc serve
                 A.webarc against nginx on SITE (sendfile, access log off), one after the other

Before each size, `df` of $WORK must show about 60 KB per page free (site, release 2, tars,
archives, unpacked copies are made and removed in turn), else the size is skipped with a message.
Peak RSS of a pipe is the largest of its processes. The machine may be shared: the ratios are
taken within one run, the commands of a row one right after the other.

Options:
  --sizes LIST     page counts (k and M suffixes; default "10k 100k 300k 1M")
  --duration S     seconds of each wrk run (default 10)
  --only LIST      rows to run, of: pack verify info unpack diff apply serve (default: all)
  --serve-paths N  random page paths wrk asks for in turn (default 2000: a working set every
                   cache holds; 100000 makes nearly every webarc request a cold lookup)
  -h, --help       this help

Environment:
  WEBARC=PATH      time this binary instead of building `swift build -c release --product webarc
                   --static-swift-stdlib` (then .build/release/webarc, copied into $WORK)
  WORK=DIR         where sites and results live (default /var/tmp/webarc-scale); sites are kept
                   between runs, everything else is removed after each size

Goals at 1 M pages (issue: knowledge-base scale), checked in the ratios table: pack ≤ 1.0× tar|lz4
and RSS ≤ 256 MiB; size ≤ 1.0× tar.lz4; verify ≤ 1.5× lz4 -t and RSS ≤ 64 MiB; unpack ≤ 1.0×;
info ≤ 10 ms; diff ≤ 1.0× packing release 2 and RSS ≤ 256 MiB; apply ≤ 3× cp+sync and RSS ≤ 128
MiB; compact update ≤ 1.0× the zstd patch; serve start ≤ 50 ms, req/s ≥ 1.0× nginx; time per page
and RSS flat within 20 % from 100 k to 1 M.
EOF
}

SIZES="10k 100k 300k 1M"
DURATION=10
SERVE_PATHS=2000
ONLY="pack verify info unpack diff apply serve"
while (($#)); do
    case "$1" in
        --sizes) SIZES="$2"; shift 2 ;;
        --duration) DURATION="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        --serve-paths) SERVE_PATHS="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "scale-bench: error: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/../.." && pwd)"
source "$SCRIPT_DIR/lib.sh"
WORK="${WORK:-/var/tmp/webarc-scale}"
mkdir -p "$WORK" "$SCRIPT_DIR/results"
log() { echo "scale-bench: $*" >&2; }
die() { echo "scale-bench: error: $*" >&2; exit 1; }
wants() { [[ " $ONLY " == *" $1 "* ]]; }

missing=()
for pair in lz4:lz4 zstd:zstd nginx:nginx wrk:wrk curl:curl /usr/bin/time:time; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if ((${#missing[@]})); then "$REPO/Tools/install-packages.sh" "${missing[@]}" >&2; fi

# wiki-gen needs numpy: a venv under $WORK when the python3 on PATH has none.
PYTHON=python3
if ! python3 -c 'import numpy' 2>/dev/null; then
    if [[ ! -x "$WORK/venv/bin/python" ]]; then
        log "making a venv with numpy in $WORK/venv"
        python3 -m venv "$WORK/venv" && "$WORK/venv/bin/pip" install --quiet numpy >&2
    fi
    PYTHON="$WORK/venv/bin/python"
fi

if [[ -z "${WEBARC:-}" ]]; then
    log "building webarc (release)"
    (cd "$REPO" && swift build -c release --product webarc --static-swift-stdlib >&2)
    WEBARC="$REPO/.build/release/webarc"
fi
# Timed from a copy written in one go, as an installed binary is (see README, pack-bench).
cp "$WEBARC" "$WORK/webarc.bin.tmp" && mv "$WORK/webarc.bin.tmp" "$WORK/webarc"
W="$WORK/webarc"

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

pages_of() {
    local n="$1"
    case "$n" in
        *k) echo $(( ${n%k} * 1000 )) ;;
        *M) echo $(( ${n%M} * 1000000 )) ;;
        *) echo "$n" ;;
    esac
}

# timed NAME COMMAND…: runs the command under /usr/bin/time, records "seconds KiB" in $RESULTS[NAME].
declare -A RESULTS=()
timed() {
    attempt "$@" || { cat "$WORK/cmd.err" >&2; die "$1 failed: ${*:2}"; }
}
# attempt NAME COMMAND…: as timed, but a failure is logged with its message and returns 1.
attempt() {
    local name="$1"; shift
    sync
    if /usr/bin/time -f '%e %M' -o "$WORK/time.out" "$@" > "$WORK/cmd.out" 2> "$WORK/cmd.err"; then
        RESULTS[$name]="$(tail -1 "$WORK/time.out")"
        log "$name: ${RESULTS[$name]% *} s, $(mib "${RESULTS[$name]#* }") MiB"
    else
        RESULTS[$name]="failed"
        log "$name failed: $(grep -v '^Command exited' "$WORK/cmd.err" | tail -1)"
        return 1
    fi
}
secs() { echo "${RESULTS[$1]% *}"; }
rss() { mib "${RESULTS[$1]#* }"; }

# now_ms: a monotonic clock in milliseconds.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# gen DIR PAGES [wiki-gen options]: the site, cached.
gen() {
    local dir="$1" pages="$2"; shift 2
    local stamp; stamp="$(sha256sum "$SCRIPT_DIR/wiki-gen" | cut -c1-12)"
    if [[ -f "$dir.done" && "$(cat "$dir.done")" == "$stamp" ]]; then return; fi
    rm -rf "$dir"
    "$PYTHON" "$SCRIPT_DIR/wiki-gen" "$dir" --pages "$pages" "$@"
    echo "$stamp" > "$dir.done"
}

# serve_rps NAME URL: wrk over the random paths; req/s into $RESULTS[NAME]. The script asks for
# origin-form targets (/w/…): an absolute-form target names the bench's own host, which webarc
# serve answers 404 (it is no archived origin) while nginx ignores it. Any answer but 2xx fails.
serve_rps() {
    local name="$1" url="$2"
    make_lua / "$WORK/paths.txt" "$WORK/$name.lua"
    wrk -t2 -c32 -d2s -s "$WORK/$name.lua" "$url" > /dev/null 2>&1 || true
    wrk -t2 -c32 -d"${DURATION}s" --latency -s "$WORK/$name.lua" "$url" > "$WORK/$name.wrk" 2>&1
    if grep -q 'Non-2xx' "$WORK/$name.wrk"; then
        die "$name: $(grep 'Non-2xx' "$WORK/$name.wrk" | tr -s ' ') (see $WORK/$name.wrk)"
    fi
    RESULTS[$name]="$(awk '/^Requests\/sec/ {print $2}' "$WORK/$name.wrk") $(awk '/ 99%/ {print $2}' "$WORK/$name.wrk")"
    log "$name: ${RESULTS[$name]} (req/s, p99)"
}

TABLE="$WORK/table.md"
: > "$TABLE"
row() { echo "| $* |" >> "$TABLE"; }

for size in $SIZES; do
    N="$(pages_of "$size")"
    need_kib=$(( N * 60 ))
    have_kib=$(df -Pk "$WORK" | awk 'NR == 2 {print $4}')
    site="$WORK/site-$size"
    [[ -f "$site.done" ]] && need_kib=$(( need_kib - N * 20 ))
    if (( have_kib < need_kib )); then
        log "skipping $size: $WORK has $(( have_kib / 1024 / 1024 )) GiB free, about $(( need_kib / 1024 / 1024 )) GiB needed"
        row "$size | skipped: $(( have_kib / 1024 / 1024 )) GiB free of about $(( need_kib / 1024 / 1024 )) GiB needed"
        continue
    fi
    log "size $size ($N pages): generating"
    gen "$site" "$N"
    if wants diff || wants apply; then gen "$site-r2" "$N" --release 2 --edit-share 0.01; fi
    files=$(find -L "$site" -type f | wc -l)
    R="$WORK/run"
    rm -rf "$R"; mkdir -p "$R"
    RESULTS=()

    timed pack "$W" pack "$site" -o "$R/a.webarc" --quiet
    timed pack-peer sh -c "tar -cf - -C '$site' . | lz4 -1 -q > '$R/a.tar.lz4'"
    timed pack-unindexed "$W" pack "$site" -o "$R/n.webarc" --no-search --quiet
    rm -f "$R/n.webarc"
    size_w=$(stat -c %s "$R/a.webarc"); size_p=$(stat -c %s "$R/a.tar.lz4")
    if wants verify; then
        timed verify "$W" verify "$R/a.webarc" --quiet
        timed verify-peer lz4 -t -q "$R/a.tar.lz4"
    fi
    info_ms=n/a
    if wants info; then
        "$W" info "$R/a.webarc" > /dev/null
        best=""
        for _ in 1 2 3 4 5; do
            t0=$(date +%s%N); "$W" info "$R/a.webarc" > /dev/null; t1=$(date +%s%N)
            ms=$(( (t1 - t0) / 1000000 )); [[ -z "$best" || $ms -lt $best ]] && best=$ms
        done
        info_ms=$best
        log "info: $info_ms ms (best of 5)"
    fi
    if wants unpack; then
        timed unpack "$W" unpack "$R/a.webarc" -o "$R/out-w" --quiet
        rm -rf "$R/out-w"
        mkdir -p "$R/out-p"
        timed unpack-peer sh -c "lz4 -dc -q '$R/a.tar.lz4' | tar -xf - -C '$R/out-p'"
        rm -rf "$R/out-p"
    fi
    if wants diff || wants apply; then
        timed pack2 "$W" pack "$site-r2" -o "$R/b.webarc" --quiet
        timed diff "$W" diff "$R/a.webarc" "$R/b.webarc" -o "$R/u.webarc" --quiet
        # A compact update's sections hold at most 128 MiB: a large enough change is refused.
        compact=yes
        attempt diff-compact "$W" diff "$R/a.webarc" "$R/b.webarc" --compact -o "$R/u.webarcu" --quiet || compact=""
        size_z=""
        # zstd refuses --patch-from between files over 2 GiB (its window's limit, error 42); a
        # tar is a little larger than its files' bytes.
        if (( $(du -sb "$site" "$site-r2" | awk '$1 > m {m = $1} END {print m}') < 15 << 27 )); then
            tar -cf "$R/a.tar" -C "$site" . && tar -cf "$R/b.tar" -C "$site-r2" .
            timed diff-peer zstd -3 --long=31 -q --patch-from="$R/a.tar" "$R/b.tar" -o "$R/p.zst"
            size_z=$(stat -c %s "$R/p.zst")
            rm -f "$R/a.tar" "$R/b.tar"
        else
            log "diff-peer: skipped, the tars would be over the 2 GiB zstd --patch-from takes"
        fi
        size_u=$(stat -c %s "$R/u.webarc"); size_uc=$( [[ -n "$compact" ]] && stat -c %s "$R/u.webarcu" || echo 0)
        if wants apply; then
            if [[ -n "$compact" ]]; then
                timed apply "$W" apply "$R/a.webarc" "$R/u.webarcu" -o "$R/b2.webarc" --quiet
                cmp -s "$R/b.webarc" "$R/b2.webarc" || log "warning: apply did not give release 2's archive byte for byte"
            fi
            timed apply-peer sh -c "cp '$R/b.webarc' '$R/c.webarc' && sync '$R/c.webarc'"
            rm -f "$R/b2.webarc" "$R/c.webarc"
            timed apply-servable "$W" apply "$R/a.webarc" "$R/u.webarc" -o "$R/b3.webarc" --quiet
            cmp -s "$R/b.webarc" "$R/b3.webarc" || log "warning: apply of the servable update did not give release 2's archive byte for byte"
            rm -f "$R/b3.webarc"
        fi
    fi
    start_ms=n/a
    if wants serve; then
        # $SERVE_PATHS random page paths (seeded: the same every run).
        (cd "$site" && find w -name '*.html' | sort | awk -v n="$SERVE_PATHS" 'BEGIN {srand(7)} {a[NR] = $0} END {for (i = 0; i < n; i++) print a[int(rand() * NR) + 1]}') > "$WORK/paths.txt"
        port=$(free_port)
        t0=$(now_ms)
        "$W" serve "$R/a.webarc" --port "$port" --quiet > "$WORK/serve.out" &
        serve_pid=$!; PIDS+=("$serve_pid")
        until curl -fs -o /dev/null "http://127.0.0.1:$port/"; do
            kill -0 "$serve_pid" 2>/dev/null || die "webarc serve exited"
            sleep 0.005
        done
        start_ms=$(( $(now_ms) - t0 ))
        log "serve start: $start_ms ms"
        serve_rps serve "http://127.0.0.1:$port/"
        serve_rss=$(rss_kib "$serve_pid")
        kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
        nport=$(free_port)
        write_nginx_conf "$WORK/nginx.conf" "$WORK" "$nport" "$site"
        nginx -c "$WORK/nginx.conf" -p "$WORK" &
        nginx_pid=$!; PIDS+=("$nginx_pid")
        wait_for "http://127.0.0.1:$nport/index.html" || die "no answer from nginx"
        serve_rps serve-peer "http://127.0.0.1:$nport/"
        kill "$nginx_pid"; wait "$nginx_pid" 2>/dev/null || true
    fi
    per_page() { awk -v s="$1" -v n="$N" 'BEGIN { printf "%.1f", s * 1e6 / n }'; }
    row "$size | $files | pack $(secs pack) s ($(per_page "$(secs pack)") µs/page, $(rss pack) MiB) vs $(secs pack-peer) s: $(ratio "$(secs pack)" "$(secs pack-peer)")× | size $(ratio "$size_w" "$size_p")× ($(mib $((size_w / 1024))) / $(mib $((size_p / 1024))) MiB)"
    row "$size | | pack --no-search $(secs pack-unindexed) s ($(per_page "$(secs pack-unindexed)") µs/page, $(rss pack-unindexed) MiB): $(ratio "$(secs pack-unindexed)" "$(secs pack-peer)")× | the search index's share of pack's time: $(awk -v a="$(secs pack)" -v b="$(secs pack-unindexed)" 'BEGIN { printf "%.0f %%", (a - b) * 100 / a }')"
    wants verify && row "$size | | verify $(secs verify) s ($(rss verify) MiB) vs $(secs verify-peer) s: $(ratio "$(secs verify)" "$(secs verify-peer)")× | info $info_ms ms"
    wants unpack && row "$size | | unpack $(secs unpack) s ($(rss unpack) MiB) vs $(secs unpack-peer) s: $(ratio "$(secs unpack)" "$(secs unpack-peer)")× |"
    if wants diff; then
        if [[ -n "$size_z" ]]; then
            patch="vs zstd patch $(( size_z / 1024 )) KiB ($(secs diff-peer) s): $(ratio "$size_uc" "$size_z")×"
        else
            patch="(no zstd patch: the tars are over its 2 GiB)"
        fi
        if [[ -n "$compact" ]]; then
            compact_text="compact $(secs diff-compact) s ($(rss diff-compact) MiB), $(( size_uc / 1024 )) KiB $patch"
        else
            compact_text="compact: refused, the change is over a compact update's 128 MiB sections"
        fi
        row "$size | | diff $(secs diff) s ($(rss diff) MiB) vs packing release 2 $(secs pack2) s: $(ratio "$(secs diff)" "$(secs pack2)")× | $compact_text; servable update $(( size_u / 1024 )) KiB"
    fi
    if wants apply; then
        compact_apply="no compact update"
        [[ -n "$compact" ]] && compact_apply="$(secs apply) s ($(rss apply) MiB): $(ratio "$(secs apply)" "$(secs apply-peer)")×"
        row "$size | | apply of the servable update $(secs apply-servable) s ($(rss apply-servable) MiB) vs cp+sync $(secs apply-peer) s: $(ratio "$(secs apply-servable)" "$(secs apply-peer)")× | compact update: $compact_apply"
    fi
    if wants serve; then
        row "$size | | serve start $start_ms ms; ${RESULTS[serve]% *} req/s (p99 ${RESULTS[serve]#* }, RSS $(mib "$serve_rss") MiB) vs nginx ${RESULTS[serve-peer]% *}: $(ratio "${RESULTS[serve]% *}" "${RESULTS[serve-peer]% *}")× |"
    fi
    rm -rf "$R"
done

out="$SCRIPT_DIR/results/scale-$(date +%Y%m%d-%H%M%S).md"
{
    echo "# scale-bench $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "| pages | files | measure | more |"
    echo "|---|---|---|---|"
    cat "$TABLE"
} | tee "$out"
log "written to $out"
