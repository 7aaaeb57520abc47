#!/usr/bin/env bash
# Throughput of WebArcSearch's text analysis, release build: VisibleText (HTML → text), Analyzer
# (text → terms), both (HTML → terms), SearchQuery.parse and Snippet.make, best of 5 over a folder
# of HTML pages (default: the Python docs of Debian's python3.11-doc).
#
# It builds a small package under /var/tmp/webarc-text-bench from symbolic links to
# Sources/WebArcHTML and Sources/WebArcSearch/Text (they depend on nothing else), so it neither
# waits for nor touches the root package's build.
#
# Usage: Tools/bench/text-bench.sh [HTML-DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
docs=${1:-/usr/share/doc/python3.11/html}
[[ -d $docs ]] || { echo "text-bench: no $docs (apt-get install python3.11-doc)" >&2; exit 66; }
bench=/var/tmp/webarc-text-bench
rm -rf "$bench/Sources"
mkdir -p "$bench/Sources/WebArcHTML" "$bench/Sources/Text" "$bench/Sources/Bench"
ln -s "$root"/Sources/WebArcHTML/*.swift "$bench/Sources/WebArcHTML/"
ln -s "$root"/Sources/WebArcSearch/Text/*.swift "$bench/Sources/Text/"
cat >"$bench/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "text-bench",
    targets: [
        .target(name: "WebArcHTML"),
        .target(name: "Text", dependencies: ["WebArcHTML"]),
        .executableTarget(name: "Bench", dependencies: ["Text"]),
    ],
    swiftLanguageModes: [.v6]
)
SWIFT
cat >"$bench/Sources/Bench/main.swift" <<'SWIFT'
import Foundation
import Text

let root = CommandLine.arguments[1]
var pages: [[UInt8]] = []
let enumerator = FileManager.default.enumerator(atPath: root)!
while let path = enumerator.nextObject() as? String {
    guard path.hasSuffix(".html") else { continue }
    pages.append(Array(try! Data(contentsOf: URL(fileURLWithPath: root + "/" + path))))
}
let htmlBytes = pages.reduce(0) { $0 + $1.count }
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
var best = (text: 1e9, analyze: 1e9, both: 1e9, query: 1e9, snippet: 1e9)
var texts: [PageText] = []
var terms = 0
for _ in 0..<5 {
    var start = now()
    texts = pages.map { VisibleText.of(html: $0, charset: nil) }
    best.text = min(best.text, now() - start)
    start = now()
    terms = 0
    for page in texts { Analyzer.forEachToken(in: page.text) { _, _, _ in terms += 1 } }
    best.analyze = min(best.analyze, now() - start)
    start = now()
    for page in pages {
        let text = VisibleText.of(html: page, charset: nil)
        Analyzer.forEachToken(in: text.title) { _, _, _ in }
        Analyzer.forEachToken(in: text.text) { _, _, _ in }
    }
    best.both = min(best.both, now() - start)
    start = now()
    for _ in 0..<1000 { _ = try! SearchQuery.parse(#"json dumps "sort keys" pyth* os.path"#) }
    best.query = min(best.query, (now() - start) / 1000)
    start = now()
    for page in texts.prefix(100) { _ = Snippet.make(text: page.text, terms: ["json", "dump"]) }
    best.snippet = min(best.snippet, (now() - start) / 100)
}
let textBytes = texts.reduce(0) { $0 + $1.text.utf8.count }
let mb = Double(htmlBytes) / 1e6
print("\(pages.count) pages, \(htmlBytes) bytes of HTML, \(textBytes) of text, \(terms) terms")
print(String(format: "VisibleText     %6.3f s  %5.0f MB/s of HTML", best.text, mb / best.text))
print(String(format: "Analyzer        %6.3f s  %5.0f MB/s of text  %4.1f M terms/s", best.analyze,
    Double(textBytes) / 1e6 / best.analyze, Double(terms) / 1e6 / best.analyze))
print(String(format: "HTML -> terms   %6.3f s  %5.0f MB/s of HTML", best.both, mb / best.both))
print(String(format: "SearchQuery.parse %.1f µs; Snippet.make %.0f µs a page (first 100 pages)", best.query * 1e6,
    best.snippet * 1e6))
SWIFT
cd "$bench"
swift build -c release 2>&1 | grep -E 'error|warning: ' || true
.build/release/Bench "$docs"
