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
/// Opening reads the header and the section table and checks their bounds; records, strings
/// and bodies are read only when asked for, with positioned reads (or from a mapping).
/// Spec: §3, §4, §5.1.
public final class ArchiveReader: Sendable {
    /// The path the archive was opened from, used in messages.
    public let path: String
    /// The decoded file header.
    public let header: FileHeader
    /// Archive-level metadata (object 0), decoded on each call (opening does not touch it).
    public var metadata: ArchiveMetadata { get throws { try decodeMetadata() } }

    let source: any ByteSource
    let sections: SectionTable
    let bodyTable: FixedTable
    let chunkTable: FixedTable
    let lookupTable: FixedTable
    let strings: OffsetTable
    let objects: OffsetTable
    let stringCache = Mutex<[UInt32: String]>([:])
    static let stringCacheLimit = 200_000

    /// Opens the archive at `path`.
    ///
    /// - Parameter mapped: map the file into memory instead of using positioned reads; faster
    ///   for a long-running server, the same bytes either way.
    /// - Throws: ``WebArcError`` naming the first problem of spec §4/§5.1 (`empty`,
    ///   `notAnArchive`, `truncated`, `unsupportedVersion`, `headerChecksum`, `badHeader`,
    ///   `badSectionTable`, `unsupportedSection`, `corruptIndex`) or `io`.
    public convenience init(path: String, mapped: Bool = false) throws {
        let file = try FileByteSource(path: path)
        if mapped && file.size > 0 {
            try self.init(source: DataByteSource(mapping: path), path: path)
        } else {
            try self.init(source: file, path: path)
        }
    }

    /// Opens an archive from any byte source.
    public init(source: any ByteSource, path: String) throws {
        self.path = path
        self.source = source
        guard source.size > 0 else { throw WebArcError.empty(path: path) }
        let headerBytes = try source.read(at: 0, count: Int(min(source.size, UInt64(FileHeader.size))))
        header = try FileHeader(parsing: headerBytes, path: path)
        try header.validate(fileSize: source.size)
        let tableBytes = try source.read(
            at: header.sectionTableOffset, count: Int(header.archiveLength - header.sectionTableOffset))
        sections = try SectionTable(parsing: tableBytes, header: header)
        bodyTable = try FixedTable(section: sections.bodyTable, minimumEntrySize: BodyEntry.size, source: source)
        chunkTable = try FixedTable(section: sections.chunkTable, minimumEntrySize: ChunkEntry.size, source: source)
        lookupTable = try FixedTable(section: sections.lookup, minimumEntrySize: 8, source: source)
        strings = try OffsetTable(section: sections.strings, source: source)
        objects = try OffsetTable(section: sections.objects, source: source)
    }

    /// Number of records (responses and redirects) in the lookup table.
    public var recordCount: Int { lookupTable.count }
    /// Number of distinct bodies.
    public var bodyCount: Int { bodyTable.count }
    /// Number of stored chunks.
    public var chunkCount: Int { chunkTable.count }
    /// Bytes of stored body data (compressed or raw chunks).
    public var storedBodyBytes: UInt64 { sections.bodyData.length }
    /// Every section, known and unknown, in table order.
    public var sectionEntries: [SectionEntry] { sections.all }
    /// Size of the underlying file.
    public var fileSize: UInt64 { source.size }

    /// The string with id `id`.
    ///
    /// - Throws: `corruptIndex` when the id is out of range or the bytes are not UTF-8.
    func string(_ id: UInt32) throws -> String {
        if let cached = stringCache.withLock({ $0[id] }) { return cached }
        var reader = try strings.item(Int(id), from: source)
        let offset = reader.offset
        guard let text = String(validating: try reader.readBytes(reader.remaining), as: UTF8.self) else {
            throw WebArcError.corruptIndex(section: "STRS", offset: offset, reason: "string \(id) is not valid UTF-8")
        }
        stringCache.withLock { cache in
            if cache.count < Self.stringCacheLimit { cache[id] = text }
        }
        return text
    }
}
