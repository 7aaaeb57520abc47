import Foundation
import WebArc
import WebArcReplay

// How many lookups each fuzzy rule rescues on real archives (Spec/replay.md §7): every `href`,
// `src` and CSS `url()` of every stored HTML or CSS page, resolved against the page's URL and
// looked up as GET, first by the exact key alone, then with the rules. One Markdown row per
// archive on stdout; with --verbose, each URL not found by its exact key under its row.
//
//     swift run -c release --package-path Tools/bench/rescue rescue-count docs.webarc iana.webarc

var arguments = Array(CommandLine.arguments.dropFirst())
let verbose = arguments.contains("--verbose")
arguments.removeAll { $0 == "--verbose" }
guard !arguments.isEmpty, !arguments.contains(where: { $0.hasPrefix("-") }) else {
    FileHandle.standardError.write(Data("usage: rescue-count [--verbose] ARCHIVE…\n".utf8))
    exit(64)
}

/// The values of `href=`, `src=` and `url(` in a page, quotes removed (a byte scan, not a parser).
func references(in bytes: [UInt8]) -> [String] {
    let text = String(decoding: bytes, as: UTF8.self)
    var found: [String] = []
    for opener in ["href=", "src=", "HREF=", "SRC=", "url("] {
        var rest = text[...]
        while let range = rest.range(of: opener) {
            rest = rest[range.upperBound...]
            var value = rest.prefix { $0 == " " }.isEmpty ? rest : rest.drop { $0 == " " }
            let quote = value.first
            if quote == "\"" || quote == "'" {
                value = value.dropFirst()
                found.append(String(value.prefix { $0 != quote && $0 != "\n" }))
            } else {
                found.append(String(value.prefix { !" >)\n\t".contains($0) }))
            }
        }
    }
    return found.filter { !$0.isEmpty && !$0.hasPrefix("#") }
}

/// Every link of every HTML or CSS response, absolute, without its fragment; http(s) only.
func links(in reader: ArchiveReader) throws -> [String] {
    var pages: [(url: String, body: BodyReference)] = []
    try reader.forEachEntry { entry in
        guard case .response(let response) = entry.record, response.request.method == "GET",
            let type = response.mimeType, type == "text/html" || type == "text/css" || type == "application/xhtml+xml"
        else { return }
        pages.append((response.request.url, response.body))
    }
    var links: [String] = []
    for page in pages {
        var bytes: [UInt8] = []
        try reader.forEachChunk(of: page.body) { bytes += $0 }
        guard let base = URL(string: page.url) else { continue }
        for reference in references(in: bytes) {
            guard let url = URL(string: reference, relativeTo: base)?.absoluteURL,
                let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https"
            else { continue }
            var text = url.absoluteString
            if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
            links.append(text)
        }
    }
    return links
}

let rules = MatchRule.fuzzy.sorted().map(\.rawValue)
print("| archive | links | distinct | exact | " + rules.joined(separator: " | ") + " | miss |")
print("|---|---|---|---|" + String(repeating: "---|", count: rules.count) + "---|")
do {
    for path in arguments {
        let reader = try ArchiveReader(path: path)
        let found = try links(in: reader)
        let exact = ReplayArchives(readers: [reader], rules: [])
        let fuzzy = ReplayArchives(readers: [reader])
        var byURL: [String: String] = [:]
        var counts: [String: (all: Int, distinct: Int)] = [:]
        for link in found {
            let outcome: String
            if let known = byURL[link] {
                outcome = known
            } else {
                if (try? exact.find(method: "GET", url: link)) != nil {
                    outcome = "exact"
                } else if let match = try? fuzzy.find(method: "GET", url: link) {
                    outcome = match.rule.rawValue
                } else {
                    outcome = "miss"
                }
                byURL[link] = outcome
                counts[outcome, default: (0, 0)].distinct += 1
            }
            counts[outcome, default: (0, 0)].all += 1
        }
        let cells = (["exact"] + rules + ["miss"]).map { key in
            let count = counts[key] ?? (0, 0)
            return "\(count.all) (\(count.distinct))"
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        print("| \(name) | \(found.count) | \(byURL.count) | " + cells.joined(separator: " | ") + " |")
        if verbose {
            for (url, outcome) in byURL.sorted(by: { $0.key < $1.key }) where outcome != "exact" {
                print("  \(outcome) \(url)")
            }
        }
    }
} catch {
    FileHandle.standardError.write(Data("rescue-count: error: \(error)\n".utf8))
    exit(1)
}
