import Foundation
import WebArc
import WebArcReplay

/// Reads a HAR 1.2 file: one capture per entry with a response, bodies from `content.text`
/// (plain or base64). Entries whose body the browser did not save are reported, not invented.
///
/// Spec: HAR 1.2 (`log.entries[]`); mapping in `Spec/interop.md` §5.
final class HARImporter: BufferedImporter {
    let sourceID: Int
    let buffered = BufferedBodies()

    init(sourceID: Int) {
        self.sourceID = sourceID
    }

    /// Parses the file and returns its captures.
    ///
    /// - Throws: ``InteropError/badJSON(at:reason:)`` when the file is not a HAR log; the first
    ///   ``InteropError/badHAREntry(at:reason:)`` or `badURL` unless `--skip-bad`.
    func read(
        _ contents: [UInt8], path: String, isGzip: Bool, context: ImportContext
    ) throws -> (records: Int, captures: [Capture]) {
        var bytes = contents
        let bomLength = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if bomLength > 0 { bytes.removeFirst(3) }
        let whole = InputLocation(file: path)
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw InteropError.badJSON(at: whole, reason: "JSON does not parse (\(error.localizedDescription))")
        }
        guard let log = (root as? [String: Any])?["log"] as? [String: Any], let entries = log["entries"] as? [Any]
        else {
            throw InteropError.badJSON(at: whole, reason: "no log.entries array")
        }
        let offsets = JSONOffsets.elementOffsets(in: bytes, path: ["log", "entries"])
        var captures: [Capture] = []
        for (number, entry) in entries.enumerated() {
            let offset = offsets.count == entries.count ? UInt64(offsets[number] + bomLength) : nil
            // In a gzip HAR the entry's offset is in the decompressed stream (whose member starts at 0).
            let location =
                isGzip
                ? InputLocation(
                    file: path, offset: offset.map { _ in 0 }, decompressedOffset: offset, item: "entry \(number)")
                : InputLocation(file: path, offset: offset, item: "entry \(number)")
            do {
                if let capture = try capture(entry, location: location, context: context) { captures.append(capture) }
            } catch let error as InteropError {
                try context.bad(error)
            }
        }
        if context.startURL == nil { context.startURL = Self.firstPageURL(log, entries: entries) }
        return (entries.count, captures)
    }

    private func capture(_ value: Any, location: InputLocation, context: ImportContext) throws -> Capture? {
        guard let entry = value as? [String: Any], let request = entry["request"] as? [String: Any],
            let url = request["url"] as? String
        else { throw InteropError.badHAREntry(at: location, reason: "no request.url") }
        guard let response = entry["response"] as? [String: Any],
            let status = (response["status"] as? NSNumber)?.intValue
        else {
            throw InteropError.badHAREntry(at: location, reason: "no response.status")
        }
        guard status != 0 else {
            context.note(.noResponse(at: location, url: url))
            return nil
        }
        guard (100...599).contains(status) else {
            throw InteropError.badHAREntry(at: location, reason: "response.status \(status) is not 100–599")
        }
        let requestHeaders = Self.headers(request["headers"])
        let headers = Self.headers(response["headers"])
        let content = response["content"] as? [String: Any] ?? [:]
        let method = (request["method"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "GET"
        let mimeText = content["mimeType"] as? String
        var capture = try Capture(
            location: location, request: RequestRecord(method: method, url: url, headers: requestHeaders),
            status: status,
            reason: (response["statusText"] as? String).flatMap { $0.isEmpty ? nil : $0 }, headers: headers,
            captureDate: (entry["startedDateTime"] as? String).flatMap(ISODate.parse), body: nil,
            redirectTarget: response["redirectURL"] as? String)
        capture.order = context.nextOrderNumber()
        let media = ContentTypeParts.of(headers.value(for: "Content-Type") ?? mimeText)
        capture.fallbackMIMEType = media.mimeType
        capture.fallbackTextEncoding = media.textEncoding
        guard case .response = capture.kind else { return capture }
        guard let text = content["text"] as? String else {
            if method.uppercased() == "HEAD" || (100...199).contains(status) || status == 204 || status == 205 {
                return withBody([], codings: [], capture)  // no body by definition
            }
            // `"text": null` says no body was saved, as a missing `text` with a size (or an unknown
            // size, -1) does: reported, not turned into an empty 200.
            let size = (content["size"] as? NSNumber)?.intValue ?? 0
            if content["text"] is NSNull || size != 0 || status == 304 {
                context.note(.bodyNotSaved(at: location, url: url))
                return nil
            }
            return withBody([], codings: [], capture)
        }
        let body: [UInt8]
        if (content["encoding"] as? String)?.lowercased() == "base64" {
            guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw InteropError.badHAREntry(at: location, reason: "content.text is not valid base64")
            }
            body = Array(decoded)
        } else {
            body = TextCharset.encode(text, charset: media.textEncoding)
        }
        return withBody(body, codings: headers.tokens(for: "Content-Encoding"), capture)
    }

    private func withBody(_ body: [UInt8], codings: [String], _ capture: Capture) -> Capture {
        var capture = capture
        capture.body = BodyID(source: sourceID, index: buffered.append(body, codings: codings))
        return capture
    }

    /// Header objects `{name, value}` in order; HTTP/2 pseudo-headers (`:status`, …) are dropped.
    static func headers(_ value: Any?) -> [HTTPHeader] {
        (value as? [[String: Any]] ?? []).compactMap { item in
            guard let name = item["name"] as? String, let value = item["value"] as? String, !name.hasPrefix(":") else {
                return nil
            }
            return HTTPHeader(name, value)
        }
    }

    /// The URL of the first page's first entry, or of the first entry.
    static func firstPageURL(_ log: [String: Any], entries: [Any]) -> String? {
        let firstPage = ((log["pages"] as? [[String: Any]])?.first?["id"] as? String)
        let entry = entries.lazy.compactMap { $0 as? [String: Any] }.first {
            firstPage == nil || $0["pageref"] as? String == firstPage
        }
        return (entry?["request"] as? [String: Any])?["url"] as? String
    }
}
