import Foundation
import WebArc

/// Reads WARC files in two passes: ``scan(path:isGzip:context:)`` reads every record's headers and
/// checks its framing; ``storeBodies(_:in:context:)`` then reads again only the payloads of the
/// captures the duplicates rule kept, so old versions never reach the archive.
///
/// Revisits and requests are matched across every WARC file of one import, so a revisit in one
/// file resolves to its original in another. Spec: `Spec/interop.md` §2.
final class WARCImporter: BodyProvider {
    /// A `response`, `resource` or `revisit` record found by the scan.
    struct Scanned {
        enum Kind { case response, resource, revisit }
        var kind: Kind
        var file: Int
        var start: WARCRecordReader.Start
        var head: HTTPHead?
        var order: Int
        var body: Int?
    }

    /// A `request` record found by the scan.
    struct Request {
        var recordID: String?
        var concurrentTo: [String]
        var uri: String?
        var file: Int
        var head: HTTPHead
        var joined = false
    }

    /// How to read one payload again in the second pass.
    struct BodySource {
        var file: Int
        var start: WARCRecordReader.Start
        var isHTTP: Bool
        var chunked: Bool
        var codings: [String]
        var url: String
    }

    let sourceID: Int
    /// The files read, in order; `window` is kept for a WARC inside a WACZ (read in place again in
    /// the second pass), nil for a file the second pass opens again by its path.
    private(set) var files: [(path: String, isGzip: Bool, window: InputFile?)] = []
    var scanned: [Scanned] = []
    var requests: [Request] = []
    var bodies: [BodySource] = []

    init(sourceID: Int) {
        self.sourceID = sourceID
    }

    /// Reads every record header of one file, checking framing, HTTP headers and chunking.
    ///
    /// - Returns: the number of records read.
    /// - Throws: the first bad record unless `--skip-bad`; I/O errors.
    func scan(path: String, isGzip: Bool, context: ImportContext) throws -> Int {
        try scan(try InputFile(path: path), isGzip: isGzip, isWindow: false, context: context)
    }

    /// ``scan(path:isGzip:context:)`` of a WARC stored in a WACZ, read in place through `window`.
    func scan(window: InputFile, isGzip: Bool, context: ImportContext) throws -> Int {
        try scan(window, isGzip: isGzip, isWindow: true, context: context)
    }

    private func scan(_ file: InputFile, isGzip: Bool, isWindow: Bool, context: ImportContext) throws -> Int {
        let path = file.path
        let fileIndex = files.count
        files.append((path, isGzip, isWindow ? file : nil))
        let reader = WARCRecordReader(stream: try WARCStream(file: file, gzip: isGzip))
        var count = 0
        var leftOut: [String: Int] = [:]
        var notedMisalignment = false
        while true {
            let start: WARCRecordReader.Start
            do {
                guard let next = try reader.next() else { break }
                start = next
            } catch let error as InteropError {
                try recover(from: error, reader: reader, context: context)
                if case .truncatedGzip = error { break }
                continue
            }
            count += 1
            if isGzip && start.position.inside != 0 && reader.stream.membersStarted > 1 && !notedMisalignment {
                notedMisalignment = true
                context.note(.misalignedGzipMembers(at: start.location))
            }
            // A record found bad only at its end (a lying Content-Length) must leave no trace.
            let mark = (scanned.count, requests.count, bodies.count, context.mark(), leftOut)
            do {
                try read(start, file: fileIndex, reader: reader, context: context, leftOut: &leftOut)
                try reader.finishRecord()
            } catch let error as InteropError {
                scanned.removeSubrange(mark.0...)
                requests.removeSubrange(mark.1...)
                bodies.removeSubrange(mark.2...)
                context.rollBack(to: mark.3)
                leftOut = mark.4
                try recover(from: error, reader: reader, context: context)
                if case .truncatedGzip = error { break }
            }
        }
        for (type, number) in leftOut.sorted(by: { $0.key < $1.key }) {
            context.note(.recordsLeftOut(file: path, type: type, count: number))
        }
        return count
    }

    /// Reports a bad record, then moves past it: to the end of its block when the framing is
    /// sound, else to the next `WARC/` line (or the next gzip member after bad gzip data).
    private func recover(from error: InteropError, reader: WARCRecordReader, context: ImportContext) throws {
        try context.bad(error)
        switch error {
        case .truncatedGzip: return
        case .badGzip:
            try reader.stream.skipToNextMember()
            try reader.resynchronize()
        case .missingHTTPHeaders, .badHTTPMessage, .badChunkedEncoding, .badURL:
            do {
                try reader.finishRecord()
            } catch let framing as InteropError {
                try recover(from: framing, reader: reader, context: context)
            }
        default:
            try reader.resynchronize()
        }
    }

    private func read(
        _ start: WARCRecordReader.Start, file: Int, reader: WARCRecordReader, context: ImportContext,
        leftOut: inout [String: Int]
    ) throws {
        let header = start.header
        switch header.type {
        case "warcinfo":
            let text = try readText(reader, limit: 64 << 10)
            if let text { context.metadataEntries.append(ArchiveMetadata.Entry("warcinfo", text)) }
        case "request":
            guard let head = try readHead(reader, start: start, required: true), case .request = head.startLine else {
                throw InteropError.missingHTTPHeaders(at: start.location, firstLine: "")
            }
            requests.append(
                Request(
                    recordID: header.recordID, concurrentTo: header.concurrentTo, uri: header.targetURI, file: file,
                    head: head))
        case "response", "resource":
            guard let uri = header.targetURI else {
                throw InteropError.badWARCHeader(
                    at: start.location, reason: "a \(header.type) record without WARC-Target-URI")
            }
            let isHTTP = header.type == "response" && Self.holdsHTTP(header)
            let head = isHTTP ? try readHead(reader, start: start, required: true) : nil
            if isHTTP, case .request? = head?.startLine {
                throw InteropError.missingHTTPHeaders(at: start.location, firstLine: "a request line")
            }
            let headers = head?.headers ?? []
            let chunked = headers.tokens(for: "Transfer-Encoding").contains("chunked")
            // A truncated record's digest names the whole payload, which the record does not hold.
            var digest =
                header["WARC-Truncated"] == nil
                ? header["WARC-Payload-Digest"].flatMap { PayloadDigestCheck(field: $0, chunked: chunked) } : nil
            let notChunked = try readPayload(
                reader, chunked: chunked, location: start.location, into: nil, digest: &digest)
            if notChunked { context.note(.notChunked(at: start.location, url: uri)) }
            if let reason = header["WARC-Truncated"] {
                context.note(.truncatedPayload(at: start.location, url: uri, reason: reason))
            }
            if let digest, !digest.matches {
                context.note(
                    .payloadDigestMismatch(
                        at: start.location, url: uri, declared: digest.declared, computed: digest.computed))
            }
            bodies.append(
                BodySource(
                    file: file, start: start, isHTTP: isHTTP, chunked: chunked && !notChunked,
                    codings: headers.tokens(for: "Content-Encoding"), url: uri))
            scanned.append(
                Scanned(
                    kind: isHTTP ? .response : .resource, file: file, start: start, head: head,
                    order: context.nextOrderNumber(),
                    body: bodies.count - 1))
        case "revisit":
            let head = try readHead(reader, start: start, required: false)
            scanned.append(
                Scanned(
                    kind: .revisit, file: file, start: start, head: head, order: context.nextOrderNumber(), body: nil))
        default:
            leftOut[header.type.isEmpty ? "untyped" : header.type, default: 0] += 1
        }
    }

    /// Whether a `response` record's block is an HTTP message (by `Content-Type`, or by the
    /// target's scheme when there is none); `dns:` and other responses are read as resources.
    static func holdsHTTP(_ header: WARCRecordHeader) -> Bool {
        if let type = header["Content-Type"] { return type.lowercased().contains("application/http") }
        let uri = (header.targetURI ?? "").lowercased()
        return uri.hasPrefix("http:") || uri.hasPrefix("https:")
    }

    /// Reads the HTTP header block at the start of the record's block.
    ///
    /// - Parameter required: when false (revisits), a block that does not start with `HTTP/` is
    ///   no header block and nil is returned.
    func readHead(_ reader: WARCRecordReader, start: WARCRecordReader.Start, required: Bool) throws -> HTTPHead? {
        guard let first = try reader.readBlockLine(limit: 64 << 10) else {
            if required { throw InteropError.missingHTTPHeaders(at: start.location, firstLine: "") }
            return nil
        }
        let firstText = HTTPHead.text(first.prefix(60))
        // A status line starts with HTTP/; a request line ends with it.
        let looksHTTP =
            first.starts(with: Array("HTTP/".utf8))
            || HTTPHead.text(first.suffix(16)).split(separator: " ").last?.hasPrefix("HTTP/") == true
        guard looksHTTP else {
            if required { throw InteropError.missingHTTPHeaders(at: start.location, firstLine: firstText) }
            return nil
        }
        var lines = [first]
        var total = first.count
        while let line = try reader.readBlockLine(limit: 64 << 10), !line.isEmpty {
            lines.append(line)
            total += line.count
            guard total <= 1 << 20 else {
                throw InteropError.badHTTPMessage(
                    at: start.location, reason: "the HTTP header block is longer than 1 MiB")
            }
        }
        do {
            return try HTTPHead(lines: lines)
        } catch {
            throw InteropError.badHTTPMessage(at: start.location, reason: error.reason)
        }
    }

    private func readText(_ reader: WARCRecordReader, limit: Int) throws -> String? {
        guard reader.remaining <= UInt64(limit) else { return nil }
        var bytes: [UInt8] = []
        while true {
            let piece = try reader.readBlock()
            if piece.isEmpty { break }
            bytes += piece
        }
        return HTTPHead.text(bytes).trimmingHTTPWhitespace()
    }
}
