/// Everything that can go wrong reading, writing or verifying an archive, with the context a user needs.
///
/// Each format case maps to one error code of the spec (Appendix A) through ``code`` and names the
/// offset the spec says it names through ``offset``; errors found inside a decoded page also give
/// the position inside it (``pagePosition``). `description` is one line: what, where, then the fix
/// when there is one.
public enum WebArcError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file holds no bytes at all.
    case empty(path: String)
    /// The file does not start with the webarc magic.
    case notAnArchive(path: String)
    /// The file ends before a structure it must hold; `offset` is the file length for a file.
    case truncated(section: String, offset: UInt64, needed: UInt64, available: UInt64)
    /// The archive's major version is one this reader does not read.
    case unsupportedVersion(major: UInt16, minor: UInt16, supportedMajor: UInt16)
    /// The appendix after the archive breaks its layout; `offset` is its `appendixLength` field.
    case badAppendix(offset: UInt64, reason: String)
    /// The trailer bytes do not match `trailerCheck`.
    case trailerChecksum(offset: UInt64)
    /// A trailer field breaks the rules of opening.
    case badTrailer(field: String, offset: UInt64, reason: String)
    /// A required feature bit this reader does not implement.
    case unsupportedFeature(bit: Int, offset: UInt64)
    /// A page's stored bytes do not match the digest its reference gives.
    case pageDigest(page: UInt64)
    /// A page that does not decode, or breaks the page layout or a bound.
    case corruptPage(page: UInt64, position: Int?, reason: String)
    /// A record, object, body entry or tree order that breaks the format, in the page at `page`.
    case corruptIndex(page: UInt64, position: Int?, reason: String)
    /// The metadata's totals differ from what the trees hold; `page` is the metadata page, `field`
    /// the first `Totals` field that differs.
    case badTotals(field: String, page: UInt64, reason: String)
    /// A key appears twice in one object; `position` is the second field.
    case duplicateKey(key: String, page: UInt64, position: Int)
    /// A chunk uses a codec this reader does not know; `page` holds its entry.
    case unsupportedCodec(codec: UInt8, body: BodyReference, chunk: Int, page: UInt64)
    /// A chunk's stored bytes do not decode to its raw length.
    case corruptChunk(body: BodyReference, chunk: Int, offset: UInt64)
    /// A chunk's decoded bytes do not match its SHA-256: they are never delivered.
    case chunkDigest(body: BodyReference, chunk: Int, offset: UInt64)
    /// An LZ4 chunk or page claims to decode to more than 255 bytes per stored byte.
    case amplification(offset: UInt64, storedLength: UInt32, rawLength: UInt32)
    /// A body's decoded bytes do not match its length, MD5 or SHA-256; `offset` is its first chunk.
    case bodyDigest(body: BodyReference, offset: UInt64, reason: String)
    /// A body the archive does not hold; `page` is the page that should have held it, if any.
    case bodyNotFound(body: BodyReference, page: UInt64?)
    /// A byte of the archive in no extent, or a non-zero reserved lead byte.
    case badLayout(offset: UInt64, reason: String)
    /// Two extents overlap; `offset` is the later one's.
    case sharedExtent(offset: UInt64, reason: String)
    /// A URL that has no canonical form.
    case badURL(url: String, reason: String)
    /// A layer stack that does not match an update's `bases`.
    case badBase(reason: String)
    /// An applied update whose result does not match the archive it names (spec §13.1), or an
    /// update that names none.
    case badTarget(reason: String)
    /// A compact update that breaks Spec/compact-update.md: where (a file offset, or a section and
    /// the position in its decoded content) and why.
    case badCompact(offset: UInt64, section: String, position: Int?, reason: String)
    /// A change a compact update cannot carry: its `section` would be over `limit` bytes, the
    /// most one section holds (Spec/compact-update.md). The update archive carries any change.
    case compactTooLarge(section: String, limit: Int)
    /// A chunk stored in a base layer, read from the update archive alone.
    case baseRequired(body: BodyReference, chunk: Int, layer: UInt8)
    /// No signature block, where a trust list asks for one.
    case unsigned(offset: UInt64)
    /// Signature blocks by keys that are not trusted only.
    case untrustedKey(keyIDs: [String], offset: UInt64)
    /// A trusted key's signature that does not verify.
    case badSignature(keyID: String, offset: UInt64)
    /// A trusted key's signature that has expired.
    case expired(keyID: String, expires: Int64, offset: UInt64)
    /// A validly signed archive older than one already accepted from the same key, or another
    /// archive with the sequence already accepted (`sequence == accepted`).
    case rolledBack(keyID: String, sequence: UInt64, accepted: UInt64, offset: UInt64)
    /// A key file that does not parse (spec §12.3).
    case badKeyFile(path: String, reason: String)
    /// A key file whose stated key ID is not the one its key gives (spec §12.3).
    case keyIDMismatch(path: String, stated: String, computed: String)
    /// A rollback state file that cannot be trusted to say what was accepted.
    case badRollbackState(path: String, reason: String)
    /// A byte range outside a body.
    case rangeOutOfBounds(body: BodyReference, lower: UInt64, upper: UInt64, length: UInt64)
    /// A record handed to the writer that cannot be stored as given.
    case invalidRecord(url: String, reason: String)
    /// The writer was used after it finished or failed.
    case writerClosed
    /// The output path already exists.
    case outputExists(path: String)
    /// A system call failed on a path.
    case io(path: String, operation: IOOperation, errno: Int32)

    /// The spec's error code (Appendix A), or a tool-level code for errors outside the format.
    public var code: String {
        switch self {
        case .empty: "empty"
        case .notAnArchive: "not-an-archive"
        case .truncated: "truncated"
        case .unsupportedVersion: "unsupported-version"
        case .badAppendix: "bad-appendix"
        case .trailerChecksum: "trailer-checksum"
        case .badTrailer: "bad-trailer"
        case .unsupportedFeature: "unsupported-feature"
        case .pageDigest: "page-digest"
        case .corruptPage: "corrupt-page"
        case .corruptIndex: "corrupt-index"
        case .badTotals: "bad-totals"
        case .duplicateKey: "duplicate-key"
        case .unsupportedCodec: "unsupported-codec"
        case .corruptChunk: "corrupt-chunk"
        case .chunkDigest: "chunk-digest"
        case .amplification: "amplification"
        case .bodyDigest: "body-digest"
        case .bodyNotFound: "body-not-found"
        case .badLayout: "bad-layout"
        case .sharedExtent: "shared-extent"
        case .badURL: "bad-url"
        case .badBase: "bad-base"
        case .badTarget: "bad-target"
        case .badCompact: "bad-compact"
        case .compactTooLarge: "compact-too-large"
        case .baseRequired: "base-required"
        case .unsigned: "unsigned"
        case .untrustedKey: "untrusted-key"
        case .badSignature: "bad-signature"
        case .expired: "expired"
        case .rolledBack: "rolled-back"
        case .badKeyFile: "bad-key-file"
        case .keyIDMismatch: "key-id-mismatch"
        case .badRollbackState: "bad-rollback-state"
        case .rangeOutOfBounds: "range-out-of-bounds"
        case .invalidRecord: "invalid-record"
        case .writerClosed: "writer-closed"
        case .outputExists: "output-exists"
        case .io: "io"
        }
    }

    /// The byte offset the error names (spec Appendix A), when it names one.
    public var offset: UInt64? {
        switch self {
        case .empty, .notAnArchive: 0
        case .unsupportedVersion: 8
        case .truncated(_, let offset, _, _), .badAppendix(let offset, _), .trailerChecksum(let offset),
            .badTrailer(_, let offset, _), .unsupportedFeature(_, let offset), .pageDigest(let offset),
            .corruptPage(let offset, _, _), .corruptIndex(let offset, _, _), .duplicateKey(_, let offset, _),
            .badTotals(_, let offset, _),
            .unsupportedCodec(_, _, _, let offset), .corruptChunk(_, _, let offset), .chunkDigest(_, _, let offset),
            .amplification(let offset, _, _), .bodyDigest(_, let offset, _), .badLayout(let offset, _),
            .sharedExtent(let offset, _), .unsigned(let offset), .untrustedKey(_, let offset),
            .badSignature(_, let offset), .expired(_, _, let offset), .rolledBack(_, _, _, let offset):
            offset
        case .bodyNotFound(_, let page): page
        case .badCompact(let offset, _, _, _): offset
        default: nil
        }
    }

    /// For an error inside a decoded page, the byte position inside the decoded page.
    public var pagePosition: Int? {
        switch self {
        case .corruptPage(_, let position, _), .corruptIndex(_, let position, _): position
        case .duplicateKey(_, _, let position): position
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .empty(let path): "\(path) is empty (0 bytes): not a webarc archive"
        case .notAnArchive(let path): "\(path) is not a webarc archive (no webarc magic at offset 0)"
        case .truncated(let section, let offset, let needed, let available):
            "truncated \(section) at offset \(Self.hex(offset)): needed \(needed) bytes, \(available) available"
        case .unsupportedVersion(let major, let minor, let supported):
            "archive format \(major).\(minor) is not readable by this webarc (reads \(supported).x)"
                + (major > supported
                    ? ": upgrade webarc"
                    : ": pack the site again, or carry it over with webarc 1.x (`webarc export OLD --format warc -o site.warc`) and `webarc import site.warc -o NEW.webarc`")
        case .badAppendix(let offset, let reason):
            "bad appendix (length field at offset \(Self.hex(offset))): \(reason)"
        case .trailerChecksum(let offset):
            "trailer check mismatch at offset \(Self.hex(offset)): the trailer is damaged"
        case .badTrailer(let field, let offset, let reason):
            "bad trailer field \(field) at offset \(Self.hex(offset)): \(reason)"
        case .unsupportedFeature(let bit, let offset):
            "required feature bit \(bit) (trailer at offset \(Self.hex(offset))) is unknown to this webarc: upgrade webarc"
        case .pageDigest(let page): "page at \(Self.hex(page)) does not match its digest: the page is damaged"
        case .corruptPage(let page, let position, let reason):
            "corrupt page at \(Self.place(page, position)): \(reason)"
        case .corruptIndex(let page, let position, let reason):
            "corrupt index in page at \(Self.place(page, position)): \(reason)"
        case .badTotals(let field, let page, let reason):
            "bad totals in the metadata page at \(Self.hex(page)): Totals.\(field) \(reason)"
        case .duplicateKey(let key, let page, let position):
            "an object repeats key \"\(key)\" in page at \(Self.place(page, position))"
        case .unsupportedCodec(let codec, let body, let chunk, let page):
            "body \(body) chunk \(chunk) (entry in page at \(Self.hex(page))) uses unknown codec \(codec)"
        case .corruptChunk(let body, let chunk, let offset):
            "body \(body) chunk \(chunk) at offset \(Self.hex(offset)) does not decode to its length"
        case .chunkDigest(let body, let chunk, let offset):
            "body \(body) chunk \(chunk) at offset \(Self.hex(offset)) does not match its SHA-256: the chunk is damaged"
        case .amplification(let offset, let stored, let raw):
            "\(raw) bytes decoded from \(stored) stored at offset \(Self.hex(offset)) is over the 255:1 bound"
        case .bodyDigest(let body, let offset, let reason): "body \(body) at offset \(Self.hex(offset)): \(reason)"
        case .bodyNotFound(let body, let page):
            page.map { "body \(body) is not in the page at \(Self.hex($0))" } ?? "body \(body) is not in the archive"
        case .badLayout(let offset, let reason): "bad layout at offset \(Self.hex(offset)): \(reason)"
        case .sharedExtent(let offset, let reason): "shared extent at offset \(Self.hex(offset)): \(reason)"
        case .badURL(let url, let reason): "bad URL \"\(url)\": \(reason)"
        case .badBase(let reason): "the layers do not match the update's bases: \(reason)"
        case .badTarget(let reason): "the update does not give the archive it names: \(reason)"
        case .badCompact(let offset, let section, let position, let reason):
            "damaged compact update: \(section) at offset \(Self.hex(offset))\(position.map { ", byte \($0) of its decoded content" } ?? ""): \(reason)"
        case .compactTooLarge(let section, let limit):
            "the change is too large for a compact update: its \(section) would be over \(limit) bytes, the most one section holds; write the update archive (diff without --compact)"
        case .baseRequired(let body, let chunk, let layer):
            "body \(body) chunk \(chunk) is stored in base layer \(layer): open the update over its bases"
        case .unsigned: "the archive is not signed: sign it with webarc sign"
        case .untrustedKey(let keys, _):
            "the archive is signed only by keys that are not trusted (\(keys.joined(separator: ", ")))"
        case .badSignature(let key, _):
            "the signature by trusted key \(key) does not verify: the archive or its signature changed after signing"
        case .expired(let key, let expires, _):
            "the signature by key \(key) expired at \(Self.date(milliseconds: expires))"
        case .rolledBack(let key, let sequence, let accepted, _):
            sequence == accepted
                ? "sequence \(sequence) signed by key \(key) was already accepted for another archive: a replaced archive"
                : "sequence \(sequence) signed by key \(key) is older than the accepted \(accepted): a rolled-back archive"
        case .badKeyFile(let path, let reason): "\(path) is not a webarc key file: \(reason)"
        case .keyIDMismatch(let path, let stated, let computed):
            "\(path) names key ID \(stated) but its key has key ID \(computed): the file was altered"
        case .badRollbackState(let path, let reason): "rollback state \(path): \(reason)"
        case .rangeOutOfBounds(let body, let lower, let upper, let length):
            "range \(lower)..<\(upper) is outside body \(body) of \(length) bytes"
        case .invalidRecord(let url, let reason): "cannot store record for \(url): \(reason)"
        case .writerClosed: "the archive writer is already finished or failed"
        case .outputExists(let path): "\(path) already exists: use --force to replace it"
        case .io(let path, let operation, let errno): "\(operation) \(path): \(Self.errnoText(errno))"
        }
    }

    /// A time in ms since 1970 as UTC ISO 8601 (`2027-01-01T00:00:00Z`).
    static func date(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = [CChar](repeating: 0, count: 32)
        let count = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: text.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func hex(_ value: UInt64) -> String { "\(value) (0x\(String(value, radix: 16)))" }

    static func place(_ page: UInt64, _ position: Int?) -> String {
        position.map { "\(hex(page)), byte \($0)" } ?? hex(page)
    }

    static func errnoText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
