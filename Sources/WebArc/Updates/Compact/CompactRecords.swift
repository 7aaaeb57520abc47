/// A record as a compact update carries it (Spec/compact-update.md §4): its *compact object* — the
/// keyed object without its `headers` field and, in a response, with a zero body reference and
/// length — and its *compact headers*, a `stringList` value apart from the object, in which a
/// response's `Content-Length` and `ETag` are one NUL byte when the body gives them.
///
/// Headers go in a column of their own so that what changes in every record of a release (a
/// `Last-Modified` date) lies at a fixed distance from the previous record's, a repeat Zstandard
/// codes in a few bytes (measurements: Tools/bench/NOTES.md, 'CompactRecords').
enum CompactRecords {
    /// The compact object of `record` (a response or a redirect).
    static func object(_ record: ArchiveRecord) -> [UInt8] {
        switch record {
        case .response(var response):
            response.headers = []
            response.body = BodyReference(digest: BodyDigest(sixteen: [UInt8](repeating: 0, count: 16)), variant: 0)
            response.bodyLength = 0
            return RecordObjects.record(.response(response)).encoded()
        case .redirect(var redirect):
            redirect.headers = []
            return RecordObjects.record(.redirect(redirect)).encoded()
        case .tombstone:
            preconditionFailure("a tombstone has no compact form")
        }
    }

    /// The compact headers of `record`: a response's derived values marked for its body's `length`
    /// and MD5 (`digest`).
    static func headers(_ record: ArchiveRecord) -> [UInt8] {
        let headers: [HTTPHeader]
        switch record {
        case .response(let response):
            headers = marked(response.headers, length: response.bodyLength, md5: response.body.digest)
        default: headers = record.headers
        }
        return FieldValue.stringList(headers.flatMap { [$0.name, $0.value] }).encoded()
    }

    /// The `ETag` value `webarc pack` writes for a body of variant 0.
    static func etag(_ md5: BodyDigest) -> String { "\"\(md5.hex)\"" }

    /// Marks the values the body gives: one NUL; a value that starts with NUL gets one more.
    static func marked(_ headers: [HTTPHeader], length: UInt64, md5: BodyDigest) -> [HTTPHeader] {
        headers.map { header in
            if named(header, "content-length") && same(header.value, String(length))
                || named(header, "etag") && same(header.value, etag(md5))
            {
                return HTTPHeader(header.name, "\0")
            }
            return header.value.utf8.first == 0 ? HTTPHeader(header.name, "\0" + header.value) : header
        }
    }

    /// Undoes ``marked(_:length:md5:)`` for a response whose body is now known; nil names the
    /// header whose single NUL stands for no value a body gives.
    static func rebuilt(_ headers: [HTTPHeader], length: UInt64, md5: BodyDigest) -> Result<[HTTPHeader], Problem> {
        var out: [HTTPHeader] = []
        out.reserveCapacity(headers.count)
        for header in headers {
            if same(header.value, "\0") {
                if named(header, "content-length") {
                    out.append(HTTPHeader(header.name, String(length)))
                } else if named(header, "etag") {
                    out.append(HTTPHeader(header.name, etag(md5)))
                } else {
                    return .failure(
                        Problem(
                            reason: "header \(header.name) is marked derived, which only Content-Length and ETag may be"
                        ))
                }
            } else if header.value.utf8.first == 0 {
                out.append(HTTPHeader(header.name, String(decoding: header.value.utf8.dropFirst(), as: UTF8.self)))
            } else {
                out.append(header)
            }
        }
        return .success(out)
    }

    /// Why compact headers cannot be rebuilt.
    struct Problem: Error {
        var reason: String
    }

    /// Whether a header's name is `lowercase` (ASCII case-insensitive).
    private static func named(_ header: HTTPHeader, _ lowercase: String) -> Bool {
        header.name.utf8.count == lowercase.utf8.count
            && zip(header.name.utf8, lowercase.utf8).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }

    /// Byte equality (String's `==` compares canonical equivalence).
    private static func same(_ left: String, _ right: String) -> Bool { left.utf8.elementsEqual(right.utf8) }
}
