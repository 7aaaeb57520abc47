#!/usr/bin/env bash
# Compares WebArcSearch's Porter2 stemmer with the Snowball project's own (PyPI snowballstemmer,
# in a venv under /var/tmp) over every distinct word of a set of HTML documents, by default the
# Python docs of Debian's python3.11-doc. Prints the agreement and the first disagreements.
#
# Usage: Tools/porter2-check.sh [HTML-DIR] [--write-sample]
#   --write-sample  also rewrite Tests/WebArcSearchTests/Fixtures/porter2-sample.tsv, the word
#                   list the tests check without PyPI (a fixed hash-chosen sample plus hand-picked
#                   words for each rule)
# Needs: python3 with venv, a built test bundle (swift build --build-tests).
set -euo pipefail
cd "$(dirname "$0")/.."

docs=/usr/share/doc/python3.11/html
write_sample=
for argument in "$@"; do
    case $argument in
    --write-sample) write_sample=1 ;;
    *) docs=$argument ;;
    esac
done
[[ -d $docs ]] || { echo "porter2-check: no $docs (apt-get install python3.11-doc)" >&2; exit 66; }

venv=${PORTER2_VENV:-/var/tmp/webarc-porter2-venv}
if [[ ! -x $venv/bin/python ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'snowballstemmer==3.1.1'
fi

words=/var/tmp/webarc-porter2-words.tsv
"$venv/bin/python" - "$docs" "$words" "$write_sample" <<'PY'
import hashlib, html.parser, pathlib, re, sys
import snowballstemmer

docs, out, write_sample = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]

class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"): self.skip += 1
    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip: self.skip -= 1
    def handle_data(self, data):
        if not self.skip: self.parts.append(data)

words = set()
for path in sorted(docs.rglob("*.html")):
    parser = Text()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    text = " ".join(parser.parts).lower().replace("\u2019", "'")
    words.update(re.findall(r"[a-z]+(?:'[a-z]+)*", text))

stemmer = snowballstemmer.stemmer("english")
pairs = sorted((word, stemmer.stemWord(word)) for word in words)
with open(out, "w") as f:
    f.writelines(f"{w}\t{s}\n" for w, s in pairs)
print(f"{len(pairs)} distinct words from {docs}", file=sys.stderr)

if write_sample:
    # Words for each rule and exception, then a fixed sample of the rest chosen by hash.
    chosen = """andes atlas bias cosmos early gently howe idly news only singly skies skis sky ugly
    arsenal community emergency generous generously interest lateral organization pasted pastor university
    dying lying tying inning outing canning herring earring evening proceed exceed succeed proceeding
    agreed feed bleed hoped hopping added eggs off controlled caresses ponies ties cries gas gaps kiwis
    says sayyid yes 'youth youth's children's boys' cry by say rational conditional valency hesitancy
    digitizer conformabli radically differently analogously vileli fulli formalism sensitivity
    sensibility fluently hopefulness callousness decisiveness fossilization relational triplicate
    formative formalize electriciti electrical hopeful goodness revival allowance inference airliner
    gyroscopic adjustable defensible irritant replacement adjustment dependent adoption communism
    activate angulariti homologous effective bowdlerize probate rate cease controll roll
    generate generation universal united earliest onlyness ogist biologist geology ecology
    pasting past pasts running connection connected connecting connections""".split()
    sample = {w: s for w, s in pairs if int(hashlib.sha256(w.encode()).hexdigest(), 16) % 8 == 0}
    for w in chosen:
        sample[w] = stemmer.stemWord(w)
    target = pathlib.Path("Tests/WebArcSearchTests/Fixtures/porter2-sample.tsv")
    with open(target, "w") as f:
        f.write("# word<TAB>stem: snowballstemmer 3.1.1 (english), by Tools/porter2-check.sh --write-sample\n")
        f.writelines(f"{w}\t{s}\n" for w, s in sorted(sample.items()))
    print(f"wrote {len(sample)} pairs to {target}", file=sys.stderr)
PY

PORTER2_WORDS=$words swift test --skip-build --filter TextPorter2Tests 2>&1 | grep -E 'porter2:|mismatch|✘|passed|failed' | head -40
