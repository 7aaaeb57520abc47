import Foundation
import WebArc

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes one page of an archive as a Safari `.webarchive`: the page as `WebMainResource`, the
/// resources it uses as `WebSubresources`, its frames as `WebSubframeArchives`.
///
/// A page's resources are those its HTML and CSS reference (``PageLinks``) plus those whose
/// request named the page in `Referer` (what a browser loaded from script); a resource is a
/// frame when an `<iframe>` names it or its request said `Sec-Fetch-Dest: iframe`. Redirects
/// are followed, and a resource is written under the URL the page used. Each subresource
/// carries its status and headers as an archived `NSHTTPURLResponse`. Spec: `Spec/interop.md` §7.3.
struct WebArchiveExporter {
    let reader: ArchiveReader
    let options: ExportOptions

    /// The records a page's resources are chosen from: by canonical URL, and by the page they name in `Referer`.
    private struct Catalog {
        var byReferer: [String: [ArchiveEntry]] = [:]
    }

    func write(to file: OutputFile) throws -> ExportSummary {
        guard let page = try options.page ?? reader.metadata.startURL else { throw InteropError.noPage(archive: reader.path) }
        var catalog = Catalog()
        try reader.forEachEntry { entry in
            guard let referer = entry.record.request.headers.value(for: "Referer"), let key = try? URLKey.canonicalize(referer) else { return }
            catalog.byReferer[key, default: []].append(entry)
        }
        guard let main = try resolve(page) else { throw InteropError.pageNotFound(url: page, archive: reader.path) }
        var summary = ExportSummary()
        var visited = Set<String>()
        let archive = try archiveDictionary(main: main, url: main.request.url, catalog: catalog, visited: &visited, summary: &summary)
        try file.append(try PropertyListSerialization.data(fromPropertyList: archive, format: .binary, options: 0))
        return summary
    }

    /// One archive level: a document, its subresources and its frames.
    private func archiveDictionary(
        main: ResponseRecord, url: String, catalog: Catalog, visited: inout Set<String>, summary: inout ExportSummary
    ) throws -> [String: Any] {
        visited.insert((try? URLKey.canonicalize(url)) ?? url)
        let body = try reader.body(main.body)
        let coded = main.headers.tokens(for: "Content-Encoding").filter { $0 != "identity" }
        if !coded.isEmpty {
            summary.notes.append(.stillEncoded(url: url, coding: coded.joined(separator: ", ")))
        }
        var archive: [String: Any] = ["WebMainResource": resource(main, url: url, data: body, withResponse: false)]
        summary.responses += 1
        var subresources: [[String: Any]] = []
        var frames: [[String: Any]] = []
        for link in try links(of: main, url: url, body: body, catalog: catalog) {
            guard let key = try? URLKey.canonicalize(link.url), !visited.contains(key), let found = try resolve(link.url) else { continue }
            visited.insert(key)
            if link.isFrame && found.mimeType == "text/html" {
                frames.append(try archiveDictionary(main: found, url: link.url, catalog: catalog, visited: &visited, summary: &summary))
                continue
            }
            let coded = found.headers.tokens(for: "Content-Encoding").filter { $0 != "identity" }
            guard coded.isEmpty else {
                summary.notes.append(.resourceLeftOut(url: link.url, reason: "its body is still \(coded.joined(separator: ", "))-encoded"))
                continue
            }
            subresources.append(resource(found, url: link.url, data: try reader.body(found.body), withResponse: true))
            summary.responses += 1
            if found.mimeType == "text/css" {
                for nested in PageLinks.css(String(decoding: try reader.body(found.body), as: UTF8.self)) {
                    guard let nestedURL = Capture.resolve(nested, against: link.url), let nestedKey = try? URLKey.canonicalize(nestedURL),
                        !visited.contains(nestedKey), let resource = try resolve(nestedURL)
                    else { continue }
                    visited.insert(nestedKey)
                    subresources.append(self.resource(resource, url: nestedURL, data: try reader.body(resource.body), withResponse: true))
                    summary.responses += 1
                }
            }
        }
        if !subresources.isEmpty { archive["WebSubresources"] = subresources }
        if !frames.isEmpty { archive["WebSubframeArchives"] = frames }
        return archive
    }

    /// The page's links in document order, then records that named it as their `Referer`.
    private func links(of main: ResponseRecord, url: String, body: Data, catalog: Catalog) throws -> [PageLinks.Link] {
        var links = main.mimeType == "text/html" || main.mimeType == "application/xhtml+xml"
            ? PageLinks.html(String(decoding: body, as: UTF8.self), base: url) : []
        let key = (try? URLKey.canonicalize(url)) ?? url
        for entry in catalog.byReferer[key] ?? [] {
            let dest = entry.record.request.headers.value(for: "Sec-Fetch-Dest")?.lowercased()
            let isFrame = dest == "iframe" || dest == "frame"
            // A document that named the page as Referer is a page the user went to next, not a resource.
            if dest == "document" { continue }
            if case .response(let response) = entry.record, response.mimeType == "text/html", !isFrame { continue }
            links.append(PageLinks.Link(url: entry.record.request.url, isFrame: isFrame))
        }
        return links
    }

    /// The response a URL leads to, following up to ten redirects.
    private func resolve(_ url: String) throws -> ResponseRecord? {
        var current = url
        for _ in 0..<10 {
            guard let entry = try reader.lookup(url: current) else { return nil }
            switch entry.record {
            case .response(let response): return response
            case .redirect(let redirect): current = redirect.target
            }
        }
        return nil
    }

    /// A resource dictionary; `withResponse` adds the archived `NSHTTPURLResponse` (WebKit never
    /// stores one for the main resource).
    private func resource(_ response: ResponseRecord, url: String, data: Data, withResponse: Bool) -> [String: Any] {
        let media = Capture.mediaType(response.headers.value(for: "Content-Type"))
        var resource: [String: Any] = [
            "WebResourceURL": url, "WebResourceData": data,
            "WebResourceMIMEType": response.mimeType ?? media.mimeType ?? "application/octet-stream",
        ]
        if let encoding = response.textEncoding ?? media.charset { resource["WebResourceTextEncodingName"] = encoding }
        if !withResponse { resource["WebResourceFrameName"] = "" }
        if withResponse, let blob = Self.archivedResponse(response, url: url) { resource["WebResourceResponse"] = blob }
        return resource
    }

    /// An `NSHTTPURLResponse` archived with `NSKeyedArchiver` under the key `WebResourceResponse`;
    /// headers that repeat are joined with ", " as `HTTPURLResponse` joins them.
    static func archivedResponse(_ response: ResponseRecord, url: String) -> Data? {
        var fields: [String: String] = [:]
        for header in response.headers {
            fields[header.name] = fields[header.name].map { $0 + ", " + header.value } ?? header.value
        }
        guard let target = URL(string: url) ?? URL(string: URIText.escaped(url)),
            let http = HTTPURLResponse(url: target, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: fields)
        else { return nil }
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .binary
        archiver.encode(http, forKey: "WebResourceResponse")
        archiver.finishEncoding()
        return archiver.encodedData
    }
}
