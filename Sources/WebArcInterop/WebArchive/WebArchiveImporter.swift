import Foundation
import WebArc

/// Reads a Safari `.webarchive`: the main resource, subresources and subframe archives, each
/// becoming one response. Bodies are the resources' data as WebKit saved it (already decoded).
///
/// Each subresource gets a `Referer` request header naming its page, and each subframe's main
/// resource also `Sec-Fetch-Dest: iframe`, so that export can rebuild the page's resources and
/// frames. Spec: `Spec/interop.md` §6.
final class WebArchiveImporter: BufferedImporter {
    let sourceID: Int
    let buffered = BufferedBodies()
    private var captures: [Capture] = []
    private var resources = 0

    init(sourceID: Int) {
        self.sourceID = sourceID
    }

    /// Parses the file and returns its captures.
    ///
    /// - Throws: ``InteropError/badPropertyList(at:reason:)`` when the file is not a web archive;
    ///   the first ``InteropError/badWebArchive(at:reason:)`` or `badURL` unless `--skip-bad`.
    func read(
        _ contents: [UInt8], path: String, isGzip: Bool, context: ImportContext
    ) throws -> (records: Int, captures: [Capture]) {
        let whole = InputLocation(file: path)
        guard let root = PropertyListReading.parse(Data(contents)) else {
            throw InteropError.badPropertyList(at: whole, reason: "the property list does not parse")
        }
        guard let archive = root as? [String: Any], archive["WebMainResource"] is [String: Any] else {
            throw InteropError.badPropertyList(at: whole, reason: "no WebMainResource dictionary at the top level")
        }
        let mainURL = try walk(archive, prefix: "", parent: nil, isFrame: false, file: path, context: context)
        if context.startURL == nil { context.startURL = mainURL }
        return (resources, captures)
    }

    /// Reads one archive level; returns its main resource's URL.
    private func walk(
        _ archive: [String: Any], prefix: String, parent: String?, isFrame: Bool, file: String, context: ImportContext
    ) throws -> String? {
        var extra: [HTTPHeader] = parent.map { [HTTPHeader("Referer", $0)] } ?? []
        if isFrame { extra.append(HTTPHeader("Sec-Fetch-Dest", "iframe")) }
        let mainURL = try resource(
            archive["WebMainResource"], item: prefix + "WebMainResource", extra: extra, file: file, context: context)
        let pageHeaders = mainURL.map { [HTTPHeader("Referer", $0)] } ?? []
        for (index, sub) in (archive["WebSubresources"] as? [Any] ?? []).enumerated() {
            _ = try resource(
                sub, item: "\(prefix)WebSubresources[\(index)]", extra: pageHeaders, file: file, context: context)
        }
        for (index, frame) in (archive["WebSubframeArchives"] as? [Any] ?? []).enumerated() {
            let item = "\(prefix)WebSubframeArchives[\(index)]"
            guard let frame = frame as? [String: Any] else {
                try context.bad(.badWebArchive(at: InputLocation(file: file, item: item), reason: "not a dictionary"))
                continue
            }
            _ = try walk(frame, prefix: item + ".", parent: mainURL, isFrame: true, file: file, context: context)
        }
        return mainURL
    }

    /// Reads one resource dictionary into a capture; returns its URL, or nil when it was skipped.
    private func resource(
        _ value: Any?, item: String, extra: [HTTPHeader], file: String, context: ImportContext
    ) throws -> String? {
        resources += 1
        let location = InputLocation(file: file, item: item)
        do {
            guard let resource = value as? [String: Any] else {
                throw InteropError.badWebArchive(at: location, reason: "not a dictionary")
            }
            guard let url = resource["WebResourceURL"] as? String, !url.isEmpty else {
                throw InteropError.badWebArchive(at: location, reason: "no WebResourceURL")
            }
            guard resource["WebResourceData"] == nil || resource["WebResourceData"] is Data else {
                throw InteropError.badWebArchive(at: location, reason: "WebResourceData is not data")
            }
            let data = resource["WebResourceData"] as? Data ?? Data()
            let mimeType = (resource["WebResourceMIMEType"] as? String).flatMap { $0.isEmpty ? nil : $0.lowercased() }
            let encoding = (resource["WebResourceTextEncodingName"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            let archived = (resource["WebResourceResponse"] as? Data).flatMap(ArchivedResponse.init(data:))
            var headers = archived?.headers ?? []
            if headers.value(for: "Content-Type") == nil, let type = mimeType ?? archived?.mimeType {
                headers.append(
                    HTTPHeader(
                        "Content-Type", type + ((encoding ?? archived?.textEncoding).map { "; charset=\($0)" } ?? "")))
            }
            var capture = try Capture(
                location: location, request: RequestRecord(url: url, headers: extra), status: archived?.status ?? 200,
                reason: nil, headers: headers, captureDate: nil, body: nil)
            capture.order = context.nextOrderNumber()
            capture.fallbackMIMEType = mimeType
            capture.fallbackTextEncoding = encoding?.lowercased()
            if case .response = capture.kind {
                capture.body = BodyID(
                    source: sourceID, index: buffered.append(data, codings: headers.tokens(for: "Content-Encoding")))
            }
            captures.append(capture)
            return url
        } catch let error as InteropError {
            try context.bad(error)
            return nil
        }
    }
}
