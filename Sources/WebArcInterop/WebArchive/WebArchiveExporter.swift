import Foundation
import WebArc
import WebArcHTML
import WebArcReplay

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

    /// A URL a page uses, resolved, and whether it is a frame's document.
    struct Link: Equatable {
        var url: String
        var isFrame: Bool
    }

    /// The records a page's resources are chosen from: by canonical URL, and by the page they name in `Referer`.
    private struct Catalog {
        var byReferer: [String: [ArchiveEntry]] = [:]
    }

    func write(to file: InteropOutputFile) throws -> ExportSummary {
        guard let page = try options.page ?? reader.metadata.startURL else {
            throw InteropError.noPage(archive: reader.path)
        }
        var catalog = Catalog()
        try reader.forEachEntry { entry in
            guard let referer = entry.record.request.headers.value(for: "Referer"),
                let key = try? URLKey.canonicalize(referer)
            else { return }
            catalog.byReferer[key, default: []].append(entry)
        }
        guard let main = try resolve(page) else { throw InteropError.pageNotFound(url: page, archive: reader.path) }
        var summary = ExportSummary()
        var visited = Set<String>()
        let archive = try archiveDictionary(
            main: main, url: main.request.url, catalog: catalog, visited: &visited, summary: &summary)
        try file.append(BinaryPropertyListWriter.data(archive))
        return summary
    }

    /// One archive level: a document, its subresources and its frames.
    private func archiveDictionary(
        main: ResponseRecord, url: String, catalog: Catalog, visited: inout Set<String>, summary: inout ExportSummary
    ) throws -> PropertyListValue {
        visited.insert((try? URLKey.canonicalize(url)) ?? url)
        let body = try reader.body(main.body)
        let coded = main.headers.tokens(for: "Content-Encoding").filter { $0 != "identity" }
        if !coded.isEmpty {
            summary.notes.append(.stillEncoded(url: url, coding: coded.joined(separator: ", ")))
        }
        var archive: [String: PropertyListValue] = [
            "WebMainResource": resource(main, url: url, data: body, withResponse: false)
        ]
        summary.responses += 1
        var subresources: [PropertyListValue] = []
        var frames: [PropertyListValue] = []
        // A queue rather than a loop over the page's links: a stylesheet's own links (`url()`,
        // `@import`) join it, so stylesheets are followed to any depth; `visited` ends cycles.
        var queue = try links(of: main, url: url, body: body, catalog: catalog)
        var next = 0
        while next < queue.count {
            let link = queue[next]
            next += 1
            guard let key = try? URLKey.canonicalize(link.url), !visited.contains(key),
                let found = try resolve(link.url)
            else { continue }
            visited.insert(key)
            if link.isFrame && found.mimeType == "text/html" {
                frames.append(
                    try archiveDictionary(
                        main: found, url: link.url, catalog: catalog, visited: &visited, summary: &summary))
                continue
            }
            let coded = found.headers.tokens(for: "Content-Encoding").filter { $0 != "identity" }
            guard coded.isEmpty else {
                summary.notes.append(
                    .resourceLeftOut(
                        url: link.url, reason: "its body is still \(coded.joined(separator: ", "))-encoded"))
                continue
            }
            let data = try reader.body(found.body)
            subresources.append(resource(found, url: link.url, data: data, withResponse: true))
            summary.responses += 1
            if Self.mimeType(of: found) == "text/css" {
                queue += CSSReferences.urls(in: data).compactMap { nested in
                    Capture.resolve(nested, against: link.url).map { Link(url: $0, isFrame: false) }
                }
            }
        }
        if !subresources.isEmpty { archive["WebSubresources"] = .array(subresources) }
        if !frames.isEmpty { archive["WebSubframeArchives"] = .array(frames) }
        return .sortedDictionary(archive)
    }

    /// The page's links in document order, then records that named it as their `Referer`.
    private func links(of main: ResponseRecord, url: String, body: Data, catalog: Catalog) throws -> [Link] {
        var links =
            main.mimeType == "text/html" || main.mimeType == "application/xhtml+xml"
            ? Self.resources(ofHTML: Array(body), at: url) : []
        let key = (try? URLKey.canonicalize(url)) ?? url
        for entry in catalog.byReferer[key] ?? [] {
            let dest = entry.record.request.headers.value(for: "Sec-Fetch-Dest")?.lowercased()
            let isFrame = dest == "iframe" || dest == "frame"
            // A document that named the page as Referer is a page the user went to next, not a resource.
            if dest == "document" { continue }
            if case .response(let response) = entry.record, response.mimeType == "text/html", !isFrame { continue }
            links.append(Link(url: entry.record.request.url, isFrame: isFrame))
        }
        return links
    }

    /// The resources and frames the HTML page `bytes` at `url` loads, resolved, in document
    /// order (``PageLinks``): not the pages it links to.
    static func resources(ofHTML bytes: [UInt8], at url: String) -> [Link] {
        let links = PageLinks(html: bytes)
        let base = links.base.flatMap { Capture.resolve($0, against: url) } ?? url
        return links.references.compactMap { reference in
            guard reference.kind != .page, let resolved = Capture.resolve(reference.url, against: base) else {
                return nil
            }
            return Link(url: resolved, isFrame: reference.kind == .frame)
        }
    }

    /// The response a URL leads to, following up to ten redirects.
    private func resolve(_ url: String) throws -> ResponseRecord? {
        var current = url
        for _ in 0..<10 {
            guard let entry = try reader.lookup(url: current) else { return nil }
            switch entry.record {
            case .response(let response): return response
            case .redirect(let redirect): current = redirect.target
            case .tombstone: return nil
            }
        }
        return nil
    }

    /// A resource dictionary; `withResponse` adds the archived `NSHTTPURLResponse` (WebKit never
    /// stores one for the main resource).
    private func resource(_ response: ResponseRecord, url: String, data: Data, withResponse: Bool) -> PropertyListValue
    {
        let mimeType = Self.mimeType(of: response) ?? "application/octet-stream"
        let encoding =
            response.textEncoding ?? ContentTypeParts.of(response.headers.value(for: "Content-Type")).textEncoding
        var resource: [String: PropertyListValue] = [
            "WebResourceURL": .string(url), "WebResourceData": .data(data), "WebResourceMIMEType": .string(mimeType),
        ]
        if let encoding { resource["WebResourceTextEncodingName"] = .string(encoding) }
        if !withResponse { resource["WebResourceFrameName"] = .string("") }
        if withResponse {
            resource["WebResourceResponse"] = .data(
                Self.archivedResponse(response, url: url, mimeType: mimeType, textEncoding: encoding))
        }
        return .sortedDictionary(resource)
    }

    /// The stored MIME type, else the one `Content-Type` names.
    static func mimeType(of response: ResponseRecord) -> String? {
        response.mimeType ?? ContentTypeParts.of(response.headers.value(for: "Content-Type")).mimeType
    }

    /// An `NSHTTPURLResponse` as `NSKeyedArchiver` archives it under the key `WebResourceResponse`
    /// (the object layout swift-corelibs-foundation writes), built by hand so that the bytes are
    /// the same every time and header names keep their stored case. Headers that repeat are
    /// joined with ", " as `HTTPURLResponse` joins them, in first-seen order.
    static func archivedResponse(
        _ response: ResponseRecord, url: String, mimeType: String, textEncoding: String?
    ) -> Data {
        var names: [String] = []
        var values: [String: String] = [:]
        for header in response.headers {
            if let earlier = names.first(where: { $0.lowercased() == header.name.lowercased() }) {
                values[earlier]! += ", " + header.value
            } else {
                names.append(header.name)
                values[header.name] = header.value
            }
        }
        var objects: [PropertyListValue] = [.string("$null")]
        func add(_ object: PropertyListValue) -> PropertyListValue {
            objects.append(object)
            return .uid(UInt32(objects.count - 1))
        }
        func classObject(_ names: [String]) -> PropertyListValue {
            .dictionary([("$classes", .array(names.map { .string($0) })), ("$classname", .string(names[0]))])
        }
        objects.append(.string("placeholder"))  // index 1: the response, filled in last
        let urlObject = add(.string("placeholder"))
        let urlString = add(.string(url))
        let urlClass = add(classObject(["NSURL", "NSObject"]))
        objects[Int(urlObject.uidValue)] = .dictionary([
            ("$class", urlClass), ("NS.base", .uid(0)), ("NS.relative", urlString),
        ])
        let mime = add(.string(mimeType))
        let lastComponent = URL(string: url)?.lastPathComponent ?? ""
        let filename = add(.string(lastComponent.isEmpty || lastComponent == "/" ? "Unknown" : lastComponent))
        let encoding = textEncoding.map { add(.string($0)) } ?? .uid(0)
        let headerObject = add(.string("placeholder"))
        let keyReferences = names.map { add(.string($0)) }
        let valueReferences = names.map { add(.string(values[$0]!)) }
        let dictionaryClass = add(classObject(["NSDictionary", "NSObject"]))
        objects[Int(headerObject.uidValue)] = .dictionary([
            ("$class", dictionaryClass), ("NS.keys", .array(keyReferences)), ("NS.objects", .array(valueReferences)),
        ])
        let responseClass = add(classObject(["NSHTTPURLResponse", "NSURLResponse", "NSObject"]))
        let length =
            response.headers.value(for: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
        objects[1] = .dictionary([
            ("$class", responseClass), ("NS.allHeaderFields", headerObject),
            ("NS.expectedContentLength", .integer(length)),
            ("NS.mimeType", mime), ("NS.statusCode", .integer(response.status)), ("NS.suggestedFilename", filename),
            ("NS.textEncodingName", encoding), ("NS.url", urlObject),
        ])
        return BinaryPropertyListWriter.data(
            .dictionary([
                ("$archiver", .string("NSKeyedArchiver")), ("$objects", .array(objects)),
                ("$top", .dictionary([("WebResourceResponse", .uid(1))])), ("$version", .integer(100000)),
            ]))
    }
}

private extension PropertyListValue {
    /// The object number of a `.uid`; 0 for any other value.
    var uidValue: UInt32 {
        if case .uid(let number) = self { return number }
        return 0
    }
}
