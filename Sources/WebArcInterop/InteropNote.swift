/// Something an import or export reports but does not fail on: a capture it could not take as it was, or
/// a record it left out on purpose. `description` is one line: what, where, why.
public enum InteropNote: Hashable, Sendable, CustomStringConvertible {
    /// A HAR entry whose response body the browser did not save: reported, not invented.
    case bodyNotSaved(at: InputLocation, url: String)
    /// A HAR entry with no response at all (status 0: blocked, failed or cancelled).
    case noResponse(at: InputLocation, url: String)
    /// A WARC revisit whose original record is in none of the inputs.
    case unresolvedRevisit(at: InputLocation, url: String, payloadDigest: String?)
    /// A gzip WARC whose members do not start and end with records (warcio cannot read it).
    case misalignedGzipMembers(at: InputLocation)
    /// A `Content-Encoding` body that did not decode; stored as it was, with its header.
    case contentNotDecoded(at: InputLocation, url: String, coding: String, reason: String)
    /// A body sent with `Transfer-Encoding: chunked` that holds no chunk framing; stored as it is.
    case notChunked(at: InputLocation, url: String)
    /// A WARC record whose `WARC-Payload-Digest` is not the digest of its payload (as stored, or
    /// de-chunked): the payload may be damaged. A warning: the record is imported as it is.
    case payloadDigestMismatch(at: InputLocation, url: String, declared: String, computed: String)
    /// A WARC response whose HTTP status is three digits outside 100–599, which the format cannot
    /// store; the record is left out.
    case statusOutOfRange(at: InputLocation, url: String, status: Int)
    /// A record cut short by its crawler (`WARC-Truncated`); imported with what it holds.
    case truncatedPayload(at: InputLocation, url: String, reason: String)
    /// Records of a kind that holds no web resource (metadata, conversion, continuation,
    /// requests without a response), counted per file and type.
    case recordsLeftOut(file: String, type: String, count: Int)
    /// A `.webarchive` resource that cannot be exported (its body is still in a coding
    /// WebKit would not decode).
    case resourceLeftOut(url: String, reason: String)
    /// A `.webarchive` page written with its body still in a content coding (WebKit will not show it).
    case stillEncoded(url: String, coding: String)

    /// Whether the note warns that an input may be damaged (printed as `warning:`), rather than
    /// reporting a choice the import made.
    public var isWarning: Bool {
        switch self {
        case .payloadDigestMismatch: true
        default: false
        }
    }

    /// The case name, for tests and `--json` output.
    public var kind: String {
        switch self {
        case .bodyNotSaved: "bodyNotSaved"
        case .noResponse: "noResponse"
        case .unresolvedRevisit: "unresolvedRevisit"
        case .misalignedGzipMembers: "misalignedGzipMembers"
        case .contentNotDecoded: "contentNotDecoded"
        case .notChunked: "notChunked"
        case .payloadDigestMismatch: "payloadDigestMismatch"
        case .statusOutOfRange: "statusOutOfRange"
        case .truncatedPayload: "truncatedPayload"
        case .recordsLeftOut: "recordsLeftOut"
        case .resourceLeftOut: "resourceLeftOut"
        case .stillEncoded: "stillEncoded"
        }
    }

    public var description: String {
        switch self {
        case .bodyNotSaved(let at, let url): "\(at): body of \(url) was not saved in the HAR; entry not imported"
        case .noResponse(let at, let url): "\(at): \(url) got no response (status 0); entry not imported"
        case .unresolvedRevisit(let at, let url, let digest):
            "\(at): revisit of \(url) refers to a record in none of the inputs"
                + (digest.map { " (payload digest \($0))" } ?? "") + "; not imported: add the WARC holding the original"
        case .misalignedGzipMembers(let at):
            "\(at): gzip members do not line up with WARC records; read as one stream "
                + "(run `warcio recompress` to fix the file for other tools)"
        case .contentNotDecoded(let at, let url, let coding, let reason):
            "\(at): \(coding) body of \(url) did not decode (\(reason)); stored as sent, with its Content-Encoding"
        case .notChunked(let at, let url):
            "\(at): \(url) says Transfer-Encoding: chunked but its body is not chunked; stored as it is"
        case .payloadDigestMismatch(let at, let url, let declared, let computed):
            "\(at): payload of \(url) does not match its WARC-Payload-Digest (declared \(declared), computed \(computed)); "
                + "imported as it is: the record may be damaged"
        case .statusOutOfRange(let at, let url, let status):
            "\(at): \(url) has HTTP status \(status), outside 100–599, which an archive cannot hold; record not imported"
        case .truncatedPayload(let at, let url, let reason):
            "\(at): \(url) was truncated by its crawler (\(reason)); imported as it is"
        case .recordsLeftOut(let file, let type, let count): "\(file): \(count) \(type) record(s) left out"
        case .resourceLeftOut(let url, let reason): "\(url) left out: \(reason)"
        case .stillEncoded(let url, let coding):
            "\(url) is written still \(coding)-encoded, as archived: WebKit will not show it"
        }
    }
}
