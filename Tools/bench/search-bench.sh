#!/usr/bin/env bash
# Full-text search: webarc's index against Pagefind, SQLite FTS5 and kiwix-serve, in one run.
# See Tools/bench/README.md ("search-bench") for what is measured and the goals.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Tools/bench/search-bench.sh [--no-kiwix] [--help]

Indexes Debian's Python 3.11 documentation (a copy with its symbolic links resolved) with every
engine and runs the same 200 queries on each: the judged ones of Tools/bench/search-queries.tsv
and queries generated from page titles with a fixed seed.

  webarc     `webarc pack --no-search`, then `webarc index` (time, peak RSS, bytes added) and
             `webarc pack` with its index; queries: a fresh `webarc search --json` process each,
             and warm through `webarc serve` (/_webarc/search and /_webarc/suggest over HTTP)
  Pagefind   `pagefind --site` (PyPI pagefind-bin, in a venv under /var/tmp); queries through its
             own pagefind.js and WebAssembly in node, each with its top 10's data
  FTS5       Python's sqlite3, porter unicode61 tokenizer, bm25 with the title weighted 10×, text
             taken with html.parser under the same chrome rules as webarc's
  kiwix      zimwriterfs with and without (-j) its Xapian index; queries to kiwix-serve's
             /search?format=xml

Prints a Markdown table (index bytes and share of the archive, index time, peak RSS, query
p50/p99, MRR@10 and recall@10 on the judged queries) and the issue's goals to stdout and to
Tools/bench/results/search-<date>-<time>.md; progress goes to stderr.

Options:
  --no-kiwix  leave out zimwriterfs and kiwix-serve (they take about two minutes)
  -h, --help  show this help

Environment:
  WEBARC=/path/to/webarc  time this binary instead of building one (swift build -c release)
  WORK=DIR                where the copy of the docs and the indexes go (default: /var/tmp/webarc-search-bench)
  VENV=DIR                the venv holding pagefind-bin (default: /var/tmp/webarc-search-bench-venv)
EOF
}

KIWIX=()
while (($#)); do
    case "$1" in
        --no-kiwix) KIWIX=(--no-kiwix); shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "search-bench: error: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done

cd "$(dirname "$0")/../.."
Tools/install-packages.sh python3.11-doc python3-venv nodejs time zim-tools kiwix-tools

WORK=${WORK:-/var/tmp/webarc-search-bench}
VENV=${VENV:-/var/tmp/webarc-search-bench-venv}
mkdir -p "$WORK"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import pagefind_bin' 2>/dev/null; then
    echo "installing pagefind-bin into $VENV" >&2
    /usr/bin/python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q 'pagefind-bin==1.5.2' >&2
fi
PAGEFIND=$("$VENV/bin/python" -c 'import os, pagefind_bin; print(os.path.join(os.path.dirname(pagefind_bin.__file__), "pagefind"))')

if [[ -z "${WEBARC:-}" ]]; then
    echo "building webarc (release)" >&2
    swift build -c release --product webarc >&2
    WEBARC=.build/release/webarc
fi
# Timed from a copy written in one go, as an installed binary is (see README, "What is measured").
cp "$WEBARC" "$WORK/webarc.tmp" && mv "$WORK/webarc.tmp" "$WORK/webarc"

mkdir -p Tools/bench/results
OUT="Tools/bench/results/search-$(date -u +%Y%m%d-%H%M%S).md"
/usr/bin/python3 Tools/bench/search_bench.py run --docs /usr/share/doc/python3.11/html --work "$WORK" \
    --webarc "$WORK/webarc" --pagefind "$PAGEFIND" --queries Tools/bench/search-queries.tsv "${KIWIX[@]}" \
    | tee "$OUT"
echo "written to $OUT" >&2
