import Crypto
import Foundation
import Synchronization

/// A read-only view of an archive, opened in constant time and safe to share between tasks.
///
/// ```swift
/// let reader = try ArchiveReader(path: "site.webarc")
/// guard case .response(let page)? = try reader.lookup(url: "http://localhost/")?.record else { return }
/// for try await chunk in reader.chunks(of: page.body) { print(chunk.count) }
/// ```
///
/// Opening reads the lead and the end of the file (64 KiB of a local file, less of a remote one:
/// ``ByteSource/openingTailLength``), which holds the trailer and, when they are near it, the
/// appendix, the record root and the metadata; when the root and metadata lie just before it, one
/// more read gets them. It checks what it read (spec §4.3, §14). Everything
/// is a verified read: each page's SHA-256 is checked before it is decoded, each chunk's after it is
/// decoded and before a byte of it is returned. Verified pages are kept in a small bounded cache,
/// and the body entries of records just looked up in another, so a body streams right after its
/// lookup without another page read. Spec: §4, §5, §11.2.
public final class ArchiveReader: Sendable {
    /// The path the archive was opened from, used in messages.
    public let path: String
    /// The lead (offset 0).
    package let lead: Lead
    /// The decoded trailer.
    package let trailer: Trailer
    /// The archive digest: SHA-256 of the 256 trailer bytes as stored, what a signature signs.
    public let archiveDigest: [UInt8]
    /// The archives an update is read over, nearest first: a chunk of `layer` n is read from
    /// `bases[n - 1]` (spec §13). Empty for a plain archive, or an update read alone.
    public let bases: [ArchiveReader]

    let source: any ByteSource
    /// Where the archive's bytes come from (a file, a mapping, memory, or a remote archive's
    /// `HTTPByteSource`, which can tell whether the file at its URL was replaced).
    public var byteSource: any ByteSource { source }
    /// Whether this archive was read from a file that its path no longer names as opened
    /// (renamed over, or rewritten in place; ``FileByteSource/changedAtPath``, one `stat`); false
    /// for other sources. Front ends that keep archives open reopen them then.
    public var isReplacedAtPath: Bool { (source as? FileByteSource)?.changedAtPath == true }
    /// Offset of the trailer.
    let trailerOffset: UInt64
    /// The last bytes of the file, read at open; pages inside them are not read again.
    let tail: [UInt8]
    let tailOffset: UInt64
    /// The caches below start with ``ReaderCacheLimits/standard``; ``limitCaches(_:)`` changes them.
    let pageCache = Mutex(LRUCache<PageCacheKey, Page>(maxCount: 256, maxCost: ReaderCacheLimits.standard.pages))
    /// The search module's parsed index pages (root, shards, documents), by page reference: this
    /// reader's verified pages parsed once.
    package let searchCache = Mutex<[PageReference: any Sendable]>([:])
    let bodyCache = Mutex(
        LRUCache<BodyReference, BodyEntry>(maxCount: 4096, maxCost: ReaderCacheLimits.standard.bodyEntries))
    /// Verified codec-2 dictionaries (the last 64 KiB of a chunk) by the chunk that holds them: a
    /// writer codes many bodies against one (spec Appendix C step 13).
    let dictionaryCache = Mutex(
        LRUCache<ChunkEntry, [UInt8]>(maxCount: 16, maxCost: ReaderCacheLimits.standard.dictionaries))
    /// Verified codec-3 references (whole decoded chunks) by their entry: a Zstandard archive codes
    /// every chunk of many bodies against an anchor's chunk (spec Appendix C step 15).
    let referenceCache = Mutex(
        LRUCache<ChunkEntry, [UInt8]>(maxCount: 8, maxCost: ReaderCacheLimits.standard.references))
    /// Group chunks decoded and verified (spec §6.3 slices): a group's neighbours in the body data
    /// are often read together (a page, then its images and styles; verify in file order).
    let groupCache = Mutex(
        LRUCache<ChunkEntry, [UInt8]>(maxCount: 8, maxCost: ReaderCacheLimits.standard.groups))

    /// Opens the archive at `path`.
    ///
    /// - Parameters:
    ///   - path: the archive file.
    ///   - mapped: map the file into memory instead of using positioned reads; the same bytes
    ///     either way, a little faster for reads that repeat. Only for a file nobody rewrites in
    ///     place while it is open: a mapped file cut short under the reader ends the process with
    ///     SIGBUS (`webarc serve` reads with `pread` for that reason).
    ///   - bases: for an update archive, its bases (nearest first, each opened over its own bases),
    ///     whose body data holds the chunks of other layers; see ``validateBases()``.
    /// - Throws: ``WebArcError`` naming the first problem of spec §4.3 (`empty`, `notAnArchive`,
    ///   `truncated`, `unsupportedVersion`, `badAppendix`, `trailerChecksum`, `badTrailer`,
    ///   `unsupportedFeature`) or `io`.
    public convenience init(path: String, mapped: Bool = false, bases: [ArchiveReader] = []) throws {
        let file = try FileByteSource(path: path)
        if mapped && file.size > 0 {
            try self.init(source: DataByteSource(mapping: path), path: path, bases: bases)
        } else {
            try self.init(source: file, path: path, bases: bases)
        }
    }

    /// Opens an archive from any byte source: two reads, the lead and the end of the file.
    public init(source: any ByteSource, path: String, bases: [ArchiveReader] = []) throws {
        self.path = path
        self.source = source
        self.bases = bases
        let size = source.size
        guard size > 0 else { throw WebArcError.empty(path: path) }
        lead = try Lead(
            parsing: try source.read(at: 0, count: Int(min(size, UInt64(Lead.size)))), fileLength: size, path: path)
        // At least the appendix's end and the trailer, so that opening needs no read of them alone.
        let tailCount = min(size, UInt64(max(source.openingTailLength, Trailer.size + 16)))
        guard size >= UInt64(Lead.size + Trailer.size) else {
            throw WebArcError.truncated(
                section: "archive", offset: size, needed: UInt64(Lead.size + Trailer.size), available: size)
        }
        var tailOffset = size - tailCount
        var tail = try source.read(at: tailOffset, count: Int(tailCount))
        let archiveEnd = try ArchiveAppendix.archiveEnd(tail: tail, fileLength: size)
        trailerOffset = archiveEnd - UInt64(Trailer.size)
        let trailerBytes: [UInt8]
        if trailerOffset >= tailOffset {
            let start = Int(trailerOffset - tailOffset)
            trailerBytes = Array(tail[start..<start + Trailer.size])
        } else {
            trailerBytes = try source.read(at: trailerOffset, count: Trailer.size)
        }
        trailer = try Trailer(parsing: trailerBytes, at: trailerOffset, fileLength: size)
        try trailer.validate(lead: lead, at: trailerOffset, archiveEnd: archiveEnd)
        archiveDigest = Array(SHA256.hash(data: trailerBytes))
        if trailerOffset >= tailOffset, let start = Self.rootPagesStart(trailer, before: tailOffset) {
            tail = try source.read(at: start, count: Int(tailOffset - start)) + tail
            tailOffset = start
        }
        self.tail = tail
        self.tailOffset = tailOffset
    }

    /// Where the record root and the metadata page start when they are not inside the tail read
    /// but end inside it or right before it with nothing else between (as a writer places them,
    /// spec Appendix C): one more read then gets both, so that a cold lookup reads only its leaf
    /// (spec §14). Nil when they are inside the tail already, or lie elsewhere (read when used).
    ///
    /// The span is at most the two pages' stored lengths (each at most 4 MiB, checked by the
    /// trailer's validation to lie inside the file).
    static func rootPagesStart(_ trailer: Trailer, before tailOffset: UInt64) -> UInt64? {
        let pages = [trailer.recordRoot, trailer.metadata]
        let start = pages.map(\.offset).min()!
        guard start < tailOffset else { return nil }
        let end = pages.map { $0.offset + UInt64($0.storedLength) }.max()!
        let stored = pages.reduce(UInt64(0)) { $0 + UInt64($1.storedLength) }
        // Together they reach the tail, and the bytes before it hold nothing but them.
        guard end >= tailOffset, tailOffset - start <= stored else { return nil }
        return start
    }

    /// The archive's length; an appendix may follow it.
    public var archiveLength: UInt64 { trailer.archiveLength }
    /// Number of records (responses, redirects, tombstones) the trailer counts.
    public var recordCount: Int { Int(trailer.recordCount) }
    /// Number of distinct bodies the trailer counts.
    public var bodyCount: Int { Int(trailer.bodyCount) }
    /// Bytes of stored body data (compressed or raw chunks).
    public var storedBodyBytes: UInt64 { trailer.bodyDataEnd - UInt64(Lead.size) }
    /// Bytes of pages and trailer: everything of the archive after the body data.
    public var indexBytes: UInt64 { trailer.archiveLength - trailer.bodyDataEnd }
    /// Size of the underlying file.
    public var fileSize: UInt64 { source.size }
    /// Where pages lie: after the body data, before the trailer.
    var pageArea: Range<UInt64> { trailer.bodyDataEnd..<trailerOffset }

    /// Archive-level metadata, from the verified metadata page.
    ///
    /// - Throws: `pageDigest`, `corruptPage`, `corruptIndex`.
    public var metadata: ArchiveMetadata {
        get throws {
            guard case .metadata(let page) = try page(trailer.metadata, .metadata) else { return ArchiveMetadata() }
            return try page.metadata()
        }
    }

    /// The bytes after `archiveLength` (signatures), empty when there are none; at most 1 MiB,
    /// which opening checked.
    ///
    /// - Throws: `io` or `truncated` when the file cannot be read.
    public func appendixBytes() throws -> [UInt8] {
        let count = source.size - trailer.archiveLength
        guard count > 0 else { return [] }
        guard count <= FormatBounds.maxAppendixLength else {
            throw WebArcError.badAppendix(offset: source.size - 16, reason: "appendix of \(count) bytes is over 1 MiB")
        }
        return try read(at: trailer.archiveLength, count: Int(count))
    }

    /// Checks that the bases this reader was given are exactly the archive's `Archive.bases`, in
    /// order, by archive digest and length (spec §13). A reader of a layer stack calls it before it
    /// serves anything; chunk digests keep wrong bases from delivering a byte either way.
    ///
    /// - Throws: `badBase`; page errors reading the metadata.
    public func validateBases() throws {
        let declared = try metadata.bases
        guard declared.count == bases.count else {
            throw WebArcError.badBase(reason: "\(path) names \(declared.count) bases, \(bases.count) given")
        }
        for (index, (base, reader)) in zip(declared, bases).enumerated()
        where base.digest != reader.archiveDigest || base.archiveLength != reader.archiveLength {
            throw WebArcError.badBase(
                reason: "base \(index + 1) of \(path) is not \(reader.path) (archive digest or length differ)")
        }
    }

    /// Reads stored bytes, from the tail read at open when they lie inside it.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        if offset >= tailOffset, offset - tailOffset + UInt64(count) <= UInt64(tail.count) {
            let start = Int(offset - tailOffset)
            return Array(tail[start..<start + count])
        }
        return try source.read(at: offset, count: count)
    }
}

extension ArchiveReader {
    /// The bytes of the `Archive` object the verified metadata page holds (spec §5.4), as stored.
    ///
    /// - Throws: `pageDigest`, `corruptPage`.
    func metadataObjectBytes() throws -> [UInt8] {
        guard case .metadata(let page) = try page(trailer.metadata, .metadata) else { return [] }
        return Array(page.bytes[page.object])
    }
}
