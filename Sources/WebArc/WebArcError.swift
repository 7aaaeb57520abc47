/// Everything that can go wrong reading, writing or verifying an archive, with the context a user needs.
///
/// Each case maps to one error code of the spec (Appendix A) through ``code``; `description` is one
/// line: what, where, then the fix when there is one.
public enum WebArcError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file holds no bytes at all.
    case empty(path: String)
    /// The file does not start with the webarc magic.
    case notAnArchive(path: String)
    /// A structure runs past the end of the file or of its section.
    case truncated(section: String, offset: UInt64, needed: UInt64, available: UInt64)
    /// The archive's major version is one this reader does not read.
    case unsupportedVersion(major: UInt16, minor: UInt16, supportedMajor: UInt16)
    /// The header bytes do not match their check value.
    case headerChecksum(offset: UInt64)
    /// A header field breaks the layout rules.
    case badHeader(field: String, offset: UInt64, reason: String)
    /// The section table is missing, duplicating or misplacing a section.
    case badSectionTable(offset: UInt64, reason: String)
    /// A required section of a type this reader does not know.
    case unsupportedSection(type: String, offset: UInt64)
    /// The index bytes do not match the header's index digest.
    case indexDigest(offset: UInt64, length: UInt64)
    /// A table or object of the index breaks the format.
    case corruptIndex(section: String, offset: UInt64, reason: String)
    /// A key appears twice in one object.
    case duplicateKey(object: UInt32, key: String, offset: UInt64)
    /// A chunk uses a codec this reader does not know.
    case unsupportedCodec(codec: UInt8, chunk: UInt64, offset: UInt64)
    /// A chunk's stored bytes do not decode to its raw length.
    case corruptChunk(chunk: UInt64, offset: UInt64)
    /// A body's decoded bytes do not match its digest or length.
    case bodyDigest(body: BodyReference, offset: UInt64, reason: String)
    /// Bytes follow the archive where its version allows none.
    case trailingData(offset: UInt64, count: UInt64)
    /// A URL that has no canonical form.
    case badURL(url: String, reason: String)
    /// A body reference that the archive's body table does not hold.
    case bodyNotFound(body: BodyReference)
    /// A byte range outside a body.
    case rangeOutOfBounds(body: BodyReference, lower: UInt64, upper: UInt64, length: UInt64)
    /// A record handed to the writer that cannot be stored as given.
    case invalidRecord(url: String, reason: String)
    /// The writer was used after it finished or failed.
    case writerClosed
    /// The output path already exists.
    case outputExists(path: String)
    /// A system call failed on a path.
    case io(path: String, operation: String, errno: Int32)

    /// The spec's error code (Appendix A), or a tool-level code for errors outside the format.
    public var code: String {
        switch self {
        case .empty: "empty"
        case .notAnArchive: "not-an-archive"
        case .truncated: "truncated"
        case .unsupportedVersion: "unsupported-version"
        case .headerChecksum: "header-checksum"
        case .badHeader: "bad-header"
        case .badSectionTable: "bad-section-table"
        case .unsupportedSection: "unsupported-section"
        case .indexDigest: "index-digest"
        case .corruptIndex: "corrupt-index"
        case .duplicateKey: "duplicate-key"
        case .unsupportedCodec: "unsupported-codec"
        case .corruptChunk: "corrupt-chunk"
        case .bodyDigest: "body-digest"
        case .trailingData: "trailing-data"
        case .badURL: "bad-url"
        case .bodyNotFound: "body-not-found"
        case .rangeOutOfBounds: "range-out-of-bounds"
        case .invalidRecord: "invalid-record"
        case .writerClosed: "writer-closed"
        case .outputExists: "output-exists"
        case .io: "io"
        }
    }

    /// The byte offset the error points at, when it points at one.
    public var offset: UInt64? {
        switch self {
        case .truncated(_, let offset, _, _), .headerChecksum(let offset), .badHeader(_, let offset, _),
            .badSectionTable(let offset, _), .unsupportedSection(_, let offset), .indexDigest(let offset, _),
            .corruptIndex(_, let offset, _), .duplicateKey(_, _, let offset), .unsupportedCodec(_, _, let offset),
            .corruptChunk(_, let offset), .bodyDigest(_, let offset, _), .trailingData(let offset, _):
            offset
        case .empty, .notAnArchive: 0
        case .unsupportedVersion: 8
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
                + (major > supported ? ": upgrade webarc" : "")
        case .headerChecksum(let offset): "header check mismatch at offset \(Self.hex(offset)): the header is damaged"
        case .badHeader(let field, let offset, let reason): "bad header field \(field) at offset \(Self.hex(offset)): \(reason)"
        case .badSectionTable(let offset, let reason): "bad section table at offset \(Self.hex(offset)): \(reason)"
        case .unsupportedSection(let type, let offset):
            "required section \(type) at offset \(Self.hex(offset)) is unknown to this webarc: upgrade webarc"
        case .indexDigest(let offset, let length):
            "index digest mismatch over \(length) bytes at offset \(Self.hex(offset)): the index is damaged"
        case .corruptIndex(let section, let offset, let reason): "corrupt \(section) at offset \(Self.hex(offset)): \(reason)"
        case .duplicateKey(let object, let key, let offset):
            "object \(object) repeats key \"\(key)\" at offset \(Self.hex(offset))"
        case .unsupportedCodec(let codec, let chunk, let offset):
            "chunk \(chunk) at offset \(Self.hex(offset)) uses unknown codec \(codec)"
        case .corruptChunk(let chunk, let offset): "chunk \(chunk) at offset \(Self.hex(offset)) does not decode"
        case .bodyDigest(let body, let offset, let reason): "body \(body) at offset \(Self.hex(offset)): \(reason)"
        case .trailingData(let offset, let count): "\(count) unexpected bytes after the archive at offset \(Self.hex(offset))"
        case .badURL(let url, let reason): "bad URL \"\(url)\": \(reason)"
        case .bodyNotFound(let body): "body \(body) is not in the archive"
        case .rangeOutOfBounds(let body, let lower, let upper, let length):
            "range \(lower)..<\(upper) is outside body \(body) of \(length) bytes"
        case .invalidRecord(let url, let reason): "cannot store record for \(url): \(reason)"
        case .writerClosed: "the archive writer is already finished or failed"
        case .outputExists(let path): "\(path) already exists: use --force to replace it"
        case .io(let path, let operation, let errno): "\(operation) \(path): \(Self.errnoText(errno))"
        }
    }

    static func hex(_ value: UInt64) -> String { "\(value) (0x\(String(value, radix: 16)))" }

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
