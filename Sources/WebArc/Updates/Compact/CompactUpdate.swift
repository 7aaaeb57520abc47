import Foundation

/// The transport form of an update (Spec/compact-update.md): what a kiosk that holds the bases
/// cannot compute — which keys changed, their records without the fields it recomputes, the new
/// bodies compressed together against their previous versions — and the archive it gives (the
/// *target*) by archive digest. ``CompactUpdateBuilder`` writes one, ``CompactApplier`` writes
/// the target from it and its bases, checked by digest before it is renamed into place.
///
/// ```
/// | magic | version | baseCount | bases (digest, LEB128 length)… | target digest | LEB128 length |
/// | target body data digest (version 2) | index section | records section | bodies section |
///                                                     (each: LEB128 n, then n bytes: one zstd frame)
/// ```
public enum CompactUpdate {
    /// `\x89WEBARCU`: the lead's magic with U (update) for its last byte.
    package static let magic: [UInt8] = [0x89, 0x57, 0x45, 0x42, 0x41, 0x52, 0x43, 0x55]
    /// The version this library writes: 2, which adds the target's body data digest (since
    /// format 2.1.6).
    public static let version: UInt8 = 2
    /// The versions this library reads: 1 (no body data digest) and 2.
    public static let readableVersions: ClosedRange<UInt8> = 1...2
    /// The bound of a section's decoded content and of its dictionary (§2).
    package static let maxSection = 1 << 27
    /// The bound of the touched-key count beyond the base's key count (§3).
    static let maxAddedKeys = 1 << 24
    /// The largest file a compact update can be: three frames of at most `maxSection` content
    /// (a frame holds at most its content plus its block headers) and the header.
    static let maxFileSize: UInt64 = 3 * (UInt64(maxSection) + UInt64(maxSection) / 1024 + 1024) + 16 * 1024

    /// The fixed part: what the update goes over and what it gives.
    public struct Header: Equatable, Sendable {
        /// The bases, nearest first, by archive digest and length.
        public var bases: [BaseArchive]
        /// The target's archive digest.
        public var targetDigest: [UInt8]
        /// The target's `archiveLength`.
        public var targetLength: UInt64
        /// The SHA-256 of the target's body data (bytes 16 to `bodyDataEnd`), which version 2
        /// names: what lets an apply copy the bases' stored chunks undecoded and check them all in
        /// one pass (`Target.bodyData` of an update archive, §13.1); nil in version 1.
        public var targetBodyData: SHA256Hash?
        /// The version the update was written in.
        public var version: UInt8 = CompactUpdate.version
    }

    /// Reads a compact update (its bytes) against `bases` without writing anything: every check of
    /// the spec but the result's digest (what a fuzzer or a quick check runs).
    ///
    /// - Throws: `badBase`, `badCompact`; read errors of the bases.
    @discardableResult
    public static func check(_ bytes: [UInt8], bases: LayerStack, path: String = "compact update") throws -> Header {
        let plan = try CompactPlan(bytes, stack: bases, path: path)
        try plan.forEachRecord { _, _, _ in }
        return plan.header
    }

    /// The sections, in file order.
    package static let sectionNames = ["index", "records", "bodies"]

    /// What a compact update says without its bases (`webarc info`): what it goes over and gives,
    /// and its sections' stored sizes.
    public struct Summary: Sendable {
        /// The bases and the target.
        public var header: Header
        /// The stored bytes of each section: index, records, bodies (0: empty).
        public var sectionBytes: [Int]
        /// The file's size.
        public var fileBytes: Int
    }

    /// Reads the header and the section extents of the compact update at `path`; no section is
    /// decoded and no base is needed.
    ///
    /// - Throws: `io` when it cannot be read; `badCompact` for a wrong magic, version or layout.
    public static func summary(path: String) throws -> Summary {
        try summary(source: try FileByteSource(path: path))
    }

    /// The same for a compact update read from `source` (a file, or a URL's `HTTPByteSource`).
    ///
    /// - Throws: as ``summary(path:)``, and what `source` throws reading.
    public static func summary(source: any ByteSource) throws -> Summary {
        let bytes = try read(source: source)
        let (header, start) = try CompactPlan.header(bytes)
        let sections = try CompactPlan.sections(bytes, after: start)
        return Summary(header: header, sectionBytes: sections.map(\.count), fileBytes: bytes.count)
    }

    /// Whether `path` is a regular file that starts with the compact update magic (a FIFO, a
    /// device or a folder is not, and is not opened in a way that could block).
    public static func isCompact(path: String) -> Bool {
        guard let source = try? FileByteSource(path: path) else { return false }
        return isCompact(source: source)
    }

    /// Whether `source` starts with the compact update magic (one read of 8 bytes).
    public static func isCompact(source: any ByteSource) -> Bool {
        guard source.size >= UInt64(magic.count) else { return false }
        return (try? source.read(at: 0, count: magic.count)) == magic
    }

    /// Reads a compact update whole, after checking its size against ``maxFileSize``.
    ///
    /// - Throws: what `source` throws reading; `badCompact` when it is larger than any compact update.
    static func read(source: any ByteSource) throws -> [UInt8] {
        guard source.size <= maxFileSize else {
            throw WebArcError.badCompact(
                offset: source.size, section: "file", position: nil,
                reason: "\(source.size) bytes is larger than any compact update (\(maxFileSize))")
        }
        return try source.read(at: 0, count: Int(source.size))
    }
}

/// A bounds-checked cursor over a compact update or one of its decoded sections; every error is
/// `badCompact` naming the section and the place.
struct CompactCursor {
    let bytes: [UInt8]
    let section: String
    /// The file offset errors name: of `bytes[0]` for the file, of the frame for a decoded section.
    let offset: UInt64
    /// Whether positions are inside decoded content (named as "byte N of its decoded content").
    let decoded: Bool
    private(set) var position = 0

    init(_ bytes: [UInt8], section: String, offset: UInt64 = 0, decoded: Bool) {
        self.bytes = bytes
        self.section = section
        self.offset = offset
        self.decoded = decoded
    }

    var remaining: Int { bytes.count - position }
    var isAtEnd: Bool { position == bytes.count }

    /// The error for a problem at `at` (the cursor's position by default).
    func problem(_ reason: String, at: Int? = nil) -> WebArcError {
        let place = at ?? position
        return decoded
            ? .badCompact(offset: offset, section: section, position: place, reason: reason)
            : .badCompact(offset: offset + UInt64(place), section: section, position: nil, reason: reason)
    }

    /// A LEB128 integer of at most 10 bytes, at most `bound`.
    mutating func number(_ what: String, bound: UInt64) throws -> Int {
        let start = position
        switch LEB128.read(bytes, &position) {
        case .success(let value):
            guard value <= bound else { throw problem("\(what) \(value) is over its bound \(bound)", at: start) }
            return Int(value)
        case .failure(.pastEnd): throw problem("\(what): the integer runs past the end", at: start)
        case .failure(.over64Bits): throw problem("\(what): an integer over 64 bits", at: start)
        case .failure(.tooLong): throw problem("\(what): an integer longer than 10 bytes", at: start)
        }
    }

    /// The next `count` bytes' range.
    mutating func take(_ count: Int, _ what: String) throws -> Range<Int> {
        guard count >= 0, count <= remaining else { throw problem("\(what): \(count) bytes, \(remaining) left") }
        defer { position += count }
        return position..<position + count
    }

    mutating func u32(_ what: String) throws -> Int {
        let range = try take(4, what)
        return bytes[range].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// The extent of one §7.1 object, from its own lengths.
    mutating func object(_ what: String) throws -> Range<Int> {
        let start = position
        _ = try take(try u32(what), what)
        let fields = try u32(what)
        guard fields <= remaining / 9 else { throw problem("\(what): \(fields) fields, \(remaining) bytes left") }
        for _ in 0..<fields {
            _ = try take(try u32(what), what)
            _ = try take(1, what)
            _ = try take(try u32(what), what)
        }
        return start..<position
    }

    /// Throws unless the cursor is at the end.
    func requireEnd() throws {
        guard isAtEnd else { throw problem("\(remaining) bytes after the \(section)'s end") }
    }
}

/// LEB128 writing for the compact form.
extension Array where Element == UInt8 {
    mutating func appendLEB128(_ value: Int) { LEB128.append(UInt64(value), to: &self) }
}
