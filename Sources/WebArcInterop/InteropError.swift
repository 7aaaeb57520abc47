import WebArc

/// Everything that can stop an import or export, with the file and byte offset to look at.
///
/// Cases for which ``isBadRecord`` is true describe one damaged record or entry: `webarc import`
/// fails on the first by default, and with `--skip-bad` skips it, lists it and imports the rest.
/// The others stop the whole command. `description` is one line: what, where, then the fix.
public enum InteropError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input is none of WARC, HAR or `.webarchive`.
    case unknownFormat(file: String, found: String)
    /// A system call failed on a path.
    case io(path: String, operation: IOOperation, errno: Int32)
    /// A gzip member ends before its end-of-stream marker.
    case truncatedGzip(at: InputLocation)
    /// Bytes that zlib refuses: not gzip, or damaged.
    case badGzip(at: InputLocation, reason: String)
    /// A gzip HAR or `.webarchive` (read whole into memory) that decompresses to more than `limit` bytes.
    case decompressedTooLarge(file: String, limit: UInt64)
    /// A WARC record header that does not parse: no `WARC/1.x` line, a bad field, no `Content-Length`.
    case badWARCHeader(at: InputLocation, reason: String)
    /// The file ends before the record's `Content-Length` bytes.
    case truncatedRecord(at: InputLocation, declared: UInt64, available: UInt64)
    /// The record's block is not followed by CRLF CRLF: its `Content-Length` is wrong.
    case contentLengthMismatch(at: InputLocation, declared: UInt64, found: String)
    /// A `response` or `request` record whose block does not start with an HTTP header block.
    case missingHTTPHeaders(at: InputLocation, firstLine: String)
    /// An HTTP header block that does not parse.
    case badHTTPMessage(at: InputLocation, reason: String)
    /// A body sent with `Transfer-Encoding: chunked` whose chunk framing breaks part way.
    case badChunkedEncoding(at: InputLocation, reason: String)
    /// A record URL that has no canonical form (spec §7.1), such as one without a scheme.
    case badURL(at: InputLocation, url: String)
    /// A HAR file that is not JSON, or not a HAR `log`.
    case badJSON(at: InputLocation, reason: String)
    /// A HAR entry that lacks a field HAR 1.2 requires, or holds an undecodable body.
    case badHAREntry(at: InputLocation, reason: String)
    /// A `.webarchive` that is not a property list of the expected shape.
    case badPropertyList(at: InputLocation, reason: String)
    /// A `.webarchive` resource that lacks its URL or holds the wrong types.
    case badWebArchive(at: InputLocation, reason: String)
    /// An error from the archive library, with the archive path it concerns.
    case archive(WebArcError, path: String)
    /// `--page` names a URL that the archive does not hold as a response.
    case pageNotFound(url: String, archive: String)
    /// Export to `.webarchive` without `--page`, and the archive names no start page.
    case noPage(archive: String)
    /// A ZIM file to read or write: ZIM goes through libzim, in WebArcZim (`webarc-zim`), not here.
    case zimNeedsLibzim(path: String)
    /// A ZIP (a WACZ) whose structure cannot be trusted: no end record, a size or offset past the
    /// file, overlapping entries, a name that climbs out with `..`, an entry that inflates past its size.
    case badZIP(file: String, reason: String)
    /// A ZIP that is not a WACZ this importer can read: no `datapackage.json`, a resource it lists
    /// missing or of another size, a WARC stored deflated, `pages.jsonl` that is not JSON lines.
    case badWACZ(file: String, reason: String)
    /// A WACZ member whose bytes do not match the digest `datapackage.json` (or, for
    /// `datapackage.json` itself, `datapackage-digest.json`) declares for it.
    case waczDigestMismatch(file: String, member: String, declared: String, computed: String)

    /// Whether the error concerns one record or entry, which `--skip-bad` may skip.
    public var isBadRecord: Bool {
        switch self {
        case .truncatedGzip, .badGzip, .badWARCHeader, .truncatedRecord, .contentLengthMismatch, .missingHTTPHeaders,
            .badHTTPMessage, .badChunkedEncoding, .badURL, .badHAREntry, .badWebArchive:
            true
        default: false
        }
    }

    /// Where in which input the problem is, when it concerns one place.
    public var location: InputLocation? {
        switch self {
        case .truncatedGzip(let at), .badGzip(let at, _), .badWARCHeader(let at, _), .truncatedRecord(let at, _, _),
            .contentLengthMismatch(let at, _, _), .missingHTTPHeaders(let at, _), .badHTTPMessage(let at, _),
            .badChunkedEncoding(let at, _), .badURL(let at, _), .badJSON(let at, _), .badHAREntry(let at, _),
            .badPropertyList(let at, _), .badWebArchive(let at, _):
            at
        default: nil
        }
    }

    /// A short stable name for the case, for tests and `--json` output.
    public var code: String {
        switch self {
        case .unknownFormat: "unknown-format"
        case .io: "io"
        case .truncatedGzip: "truncated-gzip"
        case .badGzip: "bad-gzip"
        case .decompressedTooLarge: "decompressed-too-large"
        case .badWARCHeader: "bad-warc-header"
        case .truncatedRecord: "truncated-record"
        case .contentLengthMismatch: "content-length-mismatch"
        case .missingHTTPHeaders: "missing-http-headers"
        case .badHTTPMessage: "bad-http-message"
        case .badChunkedEncoding: "bad-chunked-encoding"
        case .badURL: "bad-url"
        case .badJSON: "bad-json"
        case .badHAREntry: "bad-har-entry"
        case .badPropertyList: "bad-property-list"
        case .badWebArchive: "bad-webarchive"
        case .archive(let error, _): error.code
        case .pageNotFound: "page-not-found"
        case .noPage: "no-page"
        case .zimNeedsLibzim: "zim-needs-libzim"
        case .badZIP: "bad-zip"
        case .badWACZ: "bad-wacz"
        case .waczDigestMismatch: "wacz-digest-mismatch"
        }
    }

    public var description: String {
        switch self {
        case .unknownFormat(let file, let found):
            "\(file) is not a WARC, WACZ, HAR or .webarchive file (starts with \(found))"
        case .io(let path, let operation, let errno):
            WebArcError.io(path: path, operation: operation, errno: errno).description
        case .truncatedGzip(let at): "gzip data ends early in \(at): the file is truncated"
        case .badGzip(let at, let reason): "bad gzip data in \(at): \(reason)"
        case .decompressedTooLarge(let file, let limit):
            "\(file) decompresses to more than \(limit >> 20) MiB, the most a compressed HAR or .webarchive is read "
                + "into memory: decompress it (gunzip -k) and import the result"
        case .badWARCHeader(let at, let reason): "bad WARC record header in \(at): \(reason)"
        case .truncatedRecord(let at, let declared, let available):
            "WARC record in \(at) is truncated: Content-Length says \(declared) bytes, \(available) available"
        case .contentLengthMismatch(let at, let declared, let found):
            "WARC record in \(at): its \(declared)-byte block is not followed by CRLF CRLF (found \(found)): "
                + "its Content-Length is wrong"
        case .missingHTTPHeaders(let at, let firstLine):
            "WARC record in \(at) has no HTTP header block (first line: \"\(firstLine)\")"
        case .badHTTPMessage(let at, let reason): "bad HTTP message in \(at): \(reason)"
        case .badChunkedEncoding(let at, let reason): "bad chunked body in \(at): \(reason)"
        case .badURL(let at, let url): "URL \"\(url)\" in \(at) has no scheme: an absolute URL is needed"
        case .badJSON(let at, let reason): "\(at) is not a HAR file: \(reason)"
        case .badHAREntry(let at, let reason): "bad HAR \(at): \(reason)"
        case .badPropertyList(let at, let reason): "\(at) is not a readable .webarchive: \(reason)"
        case .badWebArchive(let at, let reason): "bad .webarchive resource in \(at): \(reason)"
        case .archive(let error, let path): error.description.contains(path) ? error.description : "\(path): \(error)"
        case .pageNotFound(let url, let archive): "\(archive) holds no response for \(url): check --page"
        case .noPage(let archive): "\(archive) names no start page: give one with --page URL"
        case .zimNeedsLibzim(let path):
            "\(path): ZIM files are read and written through libzim, by WebArcZim's ZimImporter and ZimExporter "
                + "(the webarc-zim binary that webarc import and webarc export run)"
        case .badZIP(let file, let reason): "\(file) is not a readable ZIP: \(reason)"
        case .badWACZ(let file, let reason): "\(file) is not a readable WACZ: \(reason)"
        case .waczDigestMismatch(let file, let member, let declared, let computed):
            "\(file): \(member) does not match its digest in "
                + (member == "datapackage.json" ? "datapackage-digest.json" : "datapackage.json")
                + " (declared \(declared), computed \(computed)): the WACZ is damaged; "
                + "unzip it and import its WARCs to keep what they still hold"
        }
    }
}
