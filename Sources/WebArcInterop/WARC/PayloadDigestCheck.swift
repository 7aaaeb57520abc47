import Crypto
import Foundation

/// Checks a record's `WARC-Payload-Digest` against the payload the import reads.
///
/// The value is `algorithm:digest`; the algorithm is `sha1`, `sha256`, `sha384`, `sha512` or
/// `md5` (also spelled `sha-1`, `sha-256`…, any case) and the digest base32 (as warcio and
/// Heritrix write it, padding optional), hex or base64. Other algorithms cannot be checked and
/// are left alone. For a chunked body the digest may cover the bytes as stored (warcio, wget,
/// wpull) or the de-chunked payload (the WARC 1.1 text, Heritrix 3.5+): either matches.
///
/// Spec: ISO 28500 §5.9; `Spec/interop.md` §2.5.
struct PayloadDigestCheck {
    /// The field's value as written.
    let declared: String
    private let algorithm: String
    private let expected: String
    private var stored: Hasher
    private var decoded: Hasher?

    /// A check for `field`, or nil when its algorithm is not one of the five.
    init?(field: String, chunked: Bool) {
        let parts = field.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let hasher = Hasher(algorithm: parts[0]) else { return nil }
        declared = field
        algorithm = parts[0].lowercased()
        expected = parts[1].trimmingHTTPWhitespace()
        stored = hasher
        decoded = chunked ? hasher : nil
    }

    /// Adds bytes of the block after the HTTP header block, as stored.
    mutating func addStored(_ bytes: some Collection<UInt8>) { stored.update(bytes) }

    /// Adds bytes of the payload with chunk framing removed (chunked bodies only).
    mutating func addDecoded(_ bytes: some Collection<UInt8>) { decoded?.update(bytes) }

    /// The digest of the stored bytes, in the declared algorithm, base32 — for messages.
    var computed: String { algorithm + ":" + Self.unpadded(Base32.encode(stored.finalized())) }

    /// Whether the declared digest equals that of the stored bytes or of the de-chunked payload.
    var matches: Bool {
        let wanted = Self.unpadded(expected)
        return ([stored.finalized()] + [decoded?.finalized()].compactMap { $0 }).contains {
            Self.spellings(of: $0).contains(wanted)
        }
    }

    private static func unpadded(_ text: String) -> String {
        String(text.reversed().drop { $0 == "=" }.reversed())
    }

    /// The digest written in base32 (upper and lower case), hex (both cases) and base64, unpadded.
    private static func spellings(of digest: [UInt8]) -> Set<String> {
        let base32 = unpadded(Base32.encode(digest))
        let hex = digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let base64 = unpadded(Data(digest).base64EncodedString())
        return [base32, base32.lowercased(), hex, hex.uppercased(), base64]
    }

    /// One of the supported hash functions, copyable so that two streams can share a start.
    private enum Hasher {
        case md5(Insecure.MD5)
        case sha1(Insecure.SHA1)
        case sha256(SHA256)
        case sha384(SHA384)
        case sha512(SHA512)

        init?(algorithm: String) {
            switch algorithm.lowercased().replacingOccurrences(of: "-", with: "") {
            case "md5": self = .md5(Insecure.MD5())
            case "sha1": self = .sha1(Insecure.SHA1())
            case "sha256": self = .sha256(SHA256())
            case "sha384": self = .sha384(SHA384())
            case "sha512": self = .sha512(SHA512())
            default: return nil
            }
        }

        mutating func update(_ bytes: some Collection<UInt8>) {
            let data = Array(bytes)
            switch self {
            case .md5(var h):
                h.update(data: data)
                self = .md5(h)
            case .sha1(var h):
                h.update(data: data)
                self = .sha1(h)
            case .sha256(var h):
                h.update(data: data)
                self = .sha256(h)
            case .sha384(var h):
                h.update(data: data)
                self = .sha384(h)
            case .sha512(var h):
                h.update(data: data)
                self = .sha512(h)
            }
        }

        func finalized() -> [UInt8] {
            switch self {
            case .md5(let h): Array(h.finalize())
            case .sha1(let h): Array(h.finalize())
            case .sha256(let h): Array(h.finalize())
            case .sha384(let h): Array(h.finalize())
            case .sha512(let h): Array(h.finalize())
            }
        }
    }
}
