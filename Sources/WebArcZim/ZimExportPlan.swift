import Foundation
import WebArc

/// Which records of an archive become which ZIM entries, worked out before libzim starts.
///
/// Of the GET records of one URL the newest capture is taken (what a lookup answers with). A
/// response becomes an item unless it is partial (206) or bodiless (304); a redirect a redirect
/// entry when its target is an entry too; an empty response a line of `WebArc-Empty`. The record at the base URL itself (a ZIM path cannot be
/// empty) is the main page: it is left out when another item holds the same body (a folder's
/// index.html, which an import puts back at the base URL), else written at `index.html`.
struct ZimExportPlan {
    /// An item to write.
    struct Item {
        var path: String
        var mimeType: String
        var response: ResponseRecord
    }

    let paths: ZimPaths
    private(set) var items: [Item] = []
    private(set) var redirects: [(path: String, target: String)] = []
    private(set) var mainPath: String?
    /// Path → URL for the entries whose URL is not the base URL plus their path.
    private(set) var listedURLs: [String: String] = [:]
    /// Redirects that stand for a response with the same body and type as their target (a
    /// folder's `dir/` beside its `dir/index.html`): a ZIM then holds the bytes once, and zimcheck
    /// finds nothing redundant; an import makes them responses again.
    private(set) var copies: [String] = []
    /// Path → `Content-Type` of the responses with an empty body, which zimcheck refuses as
    /// entries: the ZIM lists them in `WebArc-Empty` instead, and an import puts them back.
    private(set) var empties: [String: String] = [:]
    private(set) var leftOut: [String] = []

    /// Plans the export of the archive `reader` reads.
    ///
    /// - Throws: ``WebArc/WebArcError`` when the archive's records cannot be read.
    init(reader: ArchiveReader, metadata: ArchiveMetadata, baseURL: String?) throws {
        var newest: [String: ArchiveRecord] = [:]
        var skippedMethods = 0
        try reader.forEachEntry { entry in
            guard entry.record.request.method == "GET" else {
                if case .tombstone = entry.record {} else { skippedMethods += 1 }
                return
            }
            if case .tombstone = entry.record { return }
            if let kept = newest[entry.key],
                (kept.captureDate ?? .distantPast) >= (entry.record.captureDate ?? .distantPast)
            {
                return
            }
            newest[entry.key] = entry.record
        }
        if skippedMethods > 0 {
            leftOut.append(
                "\(skippedMethods) record(s) answering a method other than GET (a ZIM entry answers GET only)")
        }
        let records = newest.values.sorted { $0.request.url < $1.request.url }
        paths = ZimPaths(
            baseURL: baseURL ?? metadata.baseURL ?? Self.origin(of: metadata.startURL) ?? Self.commonOrigin(records)
                ?? "http://localhost/")
        var root: ArchiveRecord?
        var taken: [String: String] = [:]
        var bodies: [BodyReference: [(path: String, mimeType: String)]] = [:]
        var pendingRedirects: [(path: String, url: String, target: String)] = []
        for record in records {
            let url = record.request.url
            if String(url.prefix { $0 != "#" }) == paths.baseURL {
                root = record
                continue
            }
            guard let (path, exact) = paths.path(forURL: url) else {
                leftOut.append("\(url): not an http(s) URL")
                continue
            }
            if let other = taken[path] {
                leftOut.append("\(url): its ZIM path \(path) is \(other)'s")
                continue
            }
            switch record {
            case .response(let response):
                guard response.status != 206, response.status != 304 else {
                    leftOut.append("\(url): a \(response.status) response holds no whole body")
                    continue
                }
                if response.bodyLength == 0 {
                    empties[path] = Self.mimeType(response)
                } else {
                    items.append(Item(path: path, mimeType: Self.mimeType(response), response: response))
                    bodies[response.body, default: []].append((path, Self.mimeType(response)))
                }
            case .redirect(let redirect):
                pendingRedirects.append((path, url, redirect.target))
            case .tombstone:
                continue
            }
            taken[path] = url
            if !exact { listedURLs[path] = url }
        }
        mainPath = metadata.startURL.flatMap { paths.path(forURL: $0)?.path }.flatMap { taken[$0] != nil ? $0 : nil }
        if let root {
            let same: String? =
                if case .response(let response) = root { bodies[response.body]?.first?.path } else { nil }
            placeRoot(root, same: same, taken: &taken, isStart: metadata.startURL.map { $0 == paths.baseURL } ?? true)
        }
        makeCopies(bodies)
        resolveRedirects(pendingRedirects, taken: taken)
        if let main = mainPath,
            !items.contains(where: { $0.path == main }) && !redirects.contains(where: { $0.path == main })
        {
            mainPath = nil
        }
    }

    /// Places the record at the base URL: as the main page when it is the start page.
    private mutating func placeRoot(_ root: ArchiveRecord, same: String?, taken: inout [String: String], isStart: Bool)
    {
        switch root {
        case .response(let response):
            if let same {
                if isStart || mainPath == nil { mainPath = same }
                return
            }
            guard let path = ["index.html", "index.htm", "_root.html"].first(where: { taken[$0] == nil }) else {
                leftOut.append("\(paths.baseURL): no free path for the base URL's page")
                return
            }
            items.append(Item(path: path, mimeType: Self.mimeType(response), response: response))
            taken[path] = paths.baseURL
            listedURLs[path] = paths.baseURL
            if isStart || mainPath == nil { mainPath = path }
        case .redirect(let redirect):
            if let target = paths.path(forURL: redirect.target)?.path, taken[target] != nil, isStart || mainPath == nil
            {
                mainPath = target
            }
        case .tombstone:
            return
        }
    }

    /// Turns items with the body and type of another into redirects to it: the one whose path
    /// names a file (not ending in `/`) stays an item.
    private mutating func makeCopies(_ bodies: [BodyReference: [(path: String, mimeType: String)]]) {
        var copied: [String: String] = [:]
        for group in bodies.values where group.count > 1 {
            for mimeType in Set(group.map(\.mimeType)) {
                let same = group.filter { $0.mimeType == mimeType }.map(\.path)
                guard same.count > 1, let kept = same.first(where: { !$0.hasSuffix("/") }) ?? same.first else {
                    continue
                }
                for path in same where path != kept { copied[path] = kept }
            }
        }
        items.removeAll { copied[$0.path] != nil }
        redirects += copied.map { ($0.key, $0.value) }
        copies = copied.keys.sorted()
        if let main = mainPath, let kept = copied[main] { mainPath = kept }
    }

    /// Keeps the redirects whose target is an entry, following chains of them.
    private mutating func resolveRedirects(
        _ pending: [(path: String, url: String, target: String)], taken: [String: String]
    ) {
        var entries = Set(items.map(\.path)).union(redirects.map(\.path))
        var waiting = pending
        var progressed = true
        while progressed {
            progressed = false
            waiting.removeAll { redirect in
                guard let target = paths.path(forURL: redirect.target)?.path, entries.contains(target) else {
                    return false
                }
                redirects.append((redirect.path, target))
                entries.insert(redirect.path)
                progressed = true
                return true
            }
        }
        for redirect in waiting {
            leftOut.append("\(redirect.url): a redirect to \(redirect.target), which the ZIM does not hold")
            listedURLs[redirect.path] = nil
        }
        redirects.sort { $0.path < $1.path }
    }

    /// The mime type an item gets: the response's `Content-Type` as stored, else its media type.
    private static func mimeType(_ response: ResponseRecord) -> String {
        if let type = response.headers.value(for: "Content-Type"), type.contains("/") { return type }
        return response.mimeType ?? "application/octet-stream"
    }

    /// `scheme://host[:port]/` of an http(s) URL.
    static func origin(of url: String?) -> String? {
        guard let url, let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "") + "/"
    }

    /// The origin most records are at.
    private static func commonOrigin(_ records: [ArchiveRecord]) -> String? {
        var counts: [String: Int] = [:]
        for record in records { if let origin = origin(of: record.request.url) { counts[origin, default: 0] += 1 } }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }
}
