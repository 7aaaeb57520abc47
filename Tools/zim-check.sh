#!/usr/bin/env bash
# ZIM import and export checked against the real tools on the whole Python docs, beyond what the
# test suite runs (it uses a small site): zimwriterfs and zimdump (Debian zim-tools), warc2zim
# (PyPI, in a venv), zimcheck, kiwix-serve (Debian kiwix-tools) and headless Chromium.
#
#  1. zimwriterfs makes a ZIM of the docs; webarc imports it; every file zimdump dumps equals the
#     body `webarc unpack` writes for it (diff -r), and nothing else is there.
#  2. webarc packs the docs, exports the archive to ZIM; zimcheck passes it; it is imported again:
#     every URL and body MD5 of the packed archive comes back (and the ZIM keeps every file).
#  3. kiwix-serve serves that ZIM; headless Chromium renders its start page and library/functions.html
#     with no failed subresource (Tools/browser-check).
#  4. warc2zim makes a ZIM of `webarc export --format warc` of the packed docs; webarc imports it:
#     every URL and body MD5 equals `webarc import` of the same WARC (warc2zim's inserted script taken out).
#
# Usage: Tools/zim-check.sh   (WEBARC_BIN=DIR to use built binaries: DIR/webarc and DIR/webarc-zim)
# Exit 0 when every check passes, 1 when one fails. Work files in /var/tmp/webarc-zim-check.
set -euo pipefail
cd "$(dirname "$0")/.."

Tools/install-packages.sh python3.11-doc zim-tools kiwix-tools libzim-dev chromium python3-venv
if [[ -z "${WEBARC_BIN:-}" ]]; then
    swift build --product webarc >&2
    swift build --product webarc-zim >&2
    WEBARC_BIN=$(swift build --show-bin-path)
fi
webarc=$WEBARC_BIN/webarc
WORK=/var/tmp/webarc-zim-check
rm -rf "$WORK" && mkdir -p "$WORK"
DOCS=/usr/share/doc/python3.11/html
failed=0
check() { if "$@"; then echo "ok: $CHECK"; else echo "FAILED: $CHECK" >&2; failed=1; fi; }

# The URL → MD5 of every response (redirects: → target) of an archive, one per line, sorted.
listing() {
    "$webarc" ls "$1" --json | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print(r["url"], r.get("md5") or "-> " + r.get("target", ""))' | sort
}

# 1. zimwriterfs → import → zimdump's bytes.
cp -rL "$DOCS" "$WORK/docs"
python3 - "$WORK/docs/illustration.png" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
raw = b"".join(b"\0" + b"\x2e\x6d\xa4" * 48 for _ in range(48))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 48, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
PY
zimwriterfs -w index.html -I illustration.png -l eng -t "Python docs" -d "Python 3.11 documentation" -c PSF -p webarc \
    -n pydocs "$WORK/docs" "$WORK/docs.zim" >/dev/null
"$webarc" import "$WORK/docs.zim" -o "$WORK/docs-zim.webarc" --quiet
zimdump dump --dir="$WORK/dump" "$WORK/docs.zim" >/dev/null
"$webarc" unpack "$WORK/docs-zim.webarc" -o "$WORK/unpacked" >/dev/null 2>&1
CHECK="zimwriterfs ZIM imported: every file of zimdump dump equals webarc unpack's"
check diff -r "$WORK/dump" "$WORK/unpacked"

# 2. pack → export → zimcheck → import: every URL and body.
"$webarc" pack "$DOCS" -o "$WORK/packed.webarc" --follow-outside --quiet
"$webarc" export "$WORK/packed.webarc" --format zim -o "$WORK/packed.zim" --quiet
CHECK="zimcheck passes the exported ZIM"
# zimcheck's report goes to its log; check's own line to the terminal.
zimcheck_logged() { zimcheck "$1" >"$WORK/zimcheck.log" 2>&1; }
check zimcheck_logged "$WORK/packed.zim"
"$webarc" import "$WORK/packed.zim" -o "$WORK/back.webarc" --quiet
# Statuses are not in a ZIM: a redirect comes back 302; the listing compares URLs, bodies and targets.
CHECK="webarc → ZIM → webarc keeps every URL and body MD5"
check diff <(listing "$WORK/packed.webarc") <(listing "$WORK/back.webarc")

# 3. kiwix-serve + Chromium.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
kiwix-serve --address=127.0.0.1 --port="$port" "$WORK/packed.zim" >"$WORK/kiwix.log" 2>&1 &
kiwix=$!
trap 'kill $kiwix 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/packed/" && break; sleep 0.1; done
CHECK="kiwix-serve serves it; Chromium renders the start page and a library page with 0 failed subresources"
check python3 Tools/browser-check/browser_check.py --out "$WORK/shots" \
    "http://127.0.0.1:$port/packed/" "http://127.0.0.1:$port/packed/library/functions.html"
kill $kiwix && wait $kiwix 2>/dev/null || true
trap - EXIT

# 4. warc2zim.
python3 -m venv "$WORK/venv" && "$WORK/venv/bin/pip" install --quiet warc2zim
"$webarc" export "$WORK/packed.webarc" --format warc -o "$WORK/packed.warc.gz" --quiet
"$WORK/venv/bin/warc2zim" --url http://localhost/ --name pydocs --lang eng --output "$WORK" --zim-file w2z.zim \
    "$WORK/packed.warc.gz" >"$WORK/warc2zim.log" 2>&1
"$webarc" import "$WORK/w2z.zim" -o "$WORK/w2z.webarc" --quiet
"$webarc" import "$WORK/packed.warc.gz" -o "$WORK/warc.webarc" --quiet
CHECK="warc2zim ZIM imported: every URL and body MD5 equals the WARC's own import"
check diff <(listing "$WORK/warc.webarc") <(listing "$WORK/w2z.webarc")

exit $failed
