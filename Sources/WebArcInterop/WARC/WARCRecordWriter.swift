import Crypto
import Foundation
import WebArc

/// Writes WARC 1.1 records, each as its own gzip member (WARC 1.1 Annex D), with SHA-1 digests in
/// base32 as warcio writes them. Bodies stream from the archive twice (once to hash, once to
/// write), so memory holds one chunk at a time.
final class WARCRecordWriter {
    /// A record as written: its WARC fields, its HTTP head, and the bytes of its gzip member.
    struct Written {
        var fields: [HTTPHeader]
        var head: [UInt8]
        var offset: UInt64
        var length: UInt64
    }

    let file: InteropOutputFile
    let reader: ArchiveReader
    private let gzip = GzipWriter()
    /// Told of every record once written (a WACZ's CDXJ index is made from them).
    var onRecord: ((Written) -> Void)?

    init(file: InteropOutputFile, reader: ArchiveReader) {
        self.file = file
        self.reader = reader
    }

    /// The `sha1:BASE32` digests of the payload (the body) and of the block (`head` then body).
    func digests(head: [UInt8], body: BodyReference?) throws -> (payload: String, block: String) {
        var payload = Insecure.SHA1()
        var block = Insecure.SHA1()
        block.update(data: head)
        if let body {
            try reader.forEachChunk(of: body) { chunk in
                payload.update(data: chunk)
                block.update(data: chunk)
            }
        }
        return ("sha1:" + Base32.encode(Array(payload.finalize())), "sha1:" + Base32.encode(Array(block.finalize())))
    }

    /// Writes one record: version line, `fields`, `Content-Length`, the block (`head` then the
    /// body's bytes) and the CRLF CRLF that ends it.
    func write(fields: [HTTPHeader], head: [UInt8], body: BodyReference?, bodyLength: UInt64) throws {
        var text = "WARC/1.1\r\n"
        for field in fields { text += "\(field.name): \(Self.oneLine(field.value))\r\n" }
        text += "Content-Length: \(UInt64(head.count) + bodyLength)\r\n\r\n"
        let start = file.length
        var output: [UInt8] = []
        gzip.compress(Array(text.utf8), into: &output)
        gzip.compress(head, into: &output)
        try file.append(output)
        output.removeAll(keepingCapacity: true)
        if let body {
            try reader.forEachChunk(of: body) { chunk in
                gzip.compress(chunk, into: &output)
                try file.append(output)
                output.removeAll(keepingCapacity: true)
            }
        }
        gzip.compress([0x0D, 0x0A, 0x0D, 0x0A], into: &output)
        gzip.finishMember(into: &output)
        try file.append(output)
        onRecord?(Written(fields: fields, head: head, offset: start, length: file.length - start))
    }

    /// An HTTP/1.1 message head: the start line, the header fields, the blank line.
    static func httpHead(startLine: String, headers: [HTTPHeader]) -> [UInt8] {
        var text = startLine + "\r\n"
        for header in headers { text += "\(oneLine(header.name)): \(oneLine(header.value))\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// A deterministic record ID: a name-based (version 5 style) UUID from SHA-1 of `seed`.
    static func recordID(_ seed: String) -> String {
        var bytes = Array(Insecure.SHA1.hash(data: Array(seed.utf8)).prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x50
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let parts = [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
            hex.dropFirst(20),
        ]
        return "<urn:uuid:" + parts.joined(separator: "-") + ">"
    }

    /// A header value on one line: CR and LF become spaces.
    static func oneLine(_ value: String) -> String {
        value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" })
            ? String(value.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 }) : value
    }
}
