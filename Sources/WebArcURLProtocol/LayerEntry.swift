import Foundation
import WebArc

/// A record waiting to go into the writable layer at its next rewrite.
enum LayerEntry: Sendable {
    /// A response, with where its body comes from.
    case response(LayerResponse)
    /// A redirect hop followed live.
    case redirect(RedirectRecord)

    /// The canonical key the record is stored under; a new entry replaces the layer's records
    /// of that key.
    var key: String {
        switch self {
        case .response(let response): (try? response.request.canonicalKey()) ?? response.request.url
        case .redirect(let redirect): (try? redirect.request.canonicalKey()) ?? redirect.request.url
        }
    }
}

/// A response for the writable layer: every field of a ``ResponseRecord`` but the body, which
/// the layer's writer stores when it rewrites the layer.
struct LayerResponse: Sendable {
    var request: RequestRecord
    var status: Int
    var reason: String? = nil
    var headers: [HTTPHeader]
    var mimeType: String?
    var textEncoding: String?
    var captureDate: Date
    var body: Body

    /// Where the bytes of a layer response come from.
    enum Body: Sendable {
        /// Received live.
        case bytes(Data)
        /// A body an archive of the stack already holds (a 304 keeps it); a body the bundle
        /// holds is not stored again, the layer names the bundle's chunks.
        case stored(ArchiveReader, BodyReference)
    }

    private static func add(
        _ bytes: Data, to writer: ArchiveWriter, previous: ArchiveWriter.PreviousVersion?
    ) throws -> StoredBody {
        try previous.map { try writer.addBody(bytes, previousVersion: $0) } ?? writer.addBody(bytes)
    }

    /// Headers of a 304 that do not replace the stored ones: they would describe an empty body.
    static let bodyHeaders: Set<String> = [
        "content-length", "content-type", "content-encoding", "content-range", "transfer-encoding",
    ]

    /// Stores the body in `writer` (a new one coded against `previous`, the bundle's version, when
    /// that is shorter) and makes the record.
    func record(in writer: ArchiveWriter, previous: ArchiveWriter.PreviousVersion?) throws -> ResponseRecord {
        let stored: StoredBody
        switch body {
        case .bytes(let data): stored = try Self.add(data, to: writer, previous: previous)
        case .stored(let reader, let reference):
            stored = try Self.add(try reader.body(reference), to: writer, previous: previous)
        }
        return ResponseRecord(
            request: request, status: status, reason: reason, headers: headers, mimeType: mimeType,
            textEncoding: textEncoding,
            body: stored, captureDate: captureDate)
    }
}

extension LayerResponse {
    /// A stored response confirmed by a 304 at `date`: same body, the 304's updated headers
    /// (RFC 9111 §4.3.4) except those that describe the body.
    init(revalidated stored: ResponseRecord, from reader: ArchiveReader, notModified: [HTTPHeader], date: Date) {
        var headers = stored.headers
        for header in notModified where !Self.bodyHeaders.contains(header.name.lowercased()) {
            headers.removeAll { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }
            headers.append(header)
        }
        self.init(
            request: stored.request, status: stored.status, reason: stored.reason, headers: headers,
            mimeType: stored.mimeType,
            textEncoding: stored.textEncoding, captureDate: date, body: .stored(reader, stored.body))
    }
}
