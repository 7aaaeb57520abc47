/// One entry of the section table: a typed, flagged byte range.
///
/// Spec: §5.1 Section table.
public struct SectionEntry: Equatable, Sendable {
    /// Bytes a 1.0 writer uses per entry.
    public static let size = 24
    /// Flag bit: a reader that does not know the type must refuse the archive.
    public static let requiredFlag: UInt32 = 1

    /// Four ASCII bytes naming the section, e.g. `BDAT`.
    public var type: String
    public var flags: UInt32
    public var offset: UInt64
    public var length: UInt64

    /// Makes an entry.
    public init(type: String, flags: UInt32 = SectionEntry.requiredFlag, offset: UInt64, length: UInt64) {
        self.type = type
        self.flags = flags
        self.offset = offset
        self.length = length
    }

    /// Whether an unknown section of this kind must make a reader refuse the archive.
    public var isRequired: Bool { flags & Self.requiredFlag != 0 }
    /// The first offset past the section.
    public var end: UInt64 { offset + length }

    func serialize(into writer: inout ByteWriter) {
        writer.write(bytes: Array(type.utf8.prefix(4)))
        writer.write(flags)
        writer.write(offset)
        writer.write(length)
    }
}

/// The section types of version 1.0.
///
/// Spec: §5.1.
enum SectionType {
    static let bodyData = "BDAT"
    static let bodyTable = "BTAB"
    static let chunkTable = "CTAB"
    static let strings = "STRS"
    static let objects = "OBJS"
    static let lookup = "LKUP"
    static let known = [bodyData, bodyTable, chunkTable, strings, objects, lookup]
}

/// The located sections of an opened archive, checked against the layout rules.
///
/// Spec: §3 layout rules, §5.1.
struct SectionTable: Sendable {
    let bodyData: SectionEntry
    let bodyTable: SectionEntry
    let chunkTable: SectionEntry
    let strings: SectionEntry
    let objects: SectionEntry
    let lookup: SectionEntry
    /// Every entry in file order, known and unknown.
    let all: [SectionEntry]

    /// Decodes and validates the section table read from `header.sectionTableOffset`.
    ///
    /// - Throws: `badSectionTable` or `unsupportedSection`.
    init(parsing bytes: [UInt8], header: FileHeader) throws {
        var reader = ByteReader(bytes, baseOffset: header.sectionTableOffset, section: "section table")
        var entries: [SectionEntry] = []
        var known: [String: SectionEntry] = [:]
        for _ in 0..<header.sectionCount {
            let entryOffset = reader.offset
            let typeBytes = try reader.readBytes(4)
            let type = String(decoding: typeBytes, as: UTF8.self)
            let flags = try reader.readUInt32()
            let offset = try reader.readUInt64()
            let length = try reader.readUInt64()
            try reader.skip(Int(header.sectionEntrySize) - SectionEntry.size)
            let entry = SectionEntry(type: type, flags: flags, offset: offset, length: length)
            let (end, overflow) = offset.addingReportingOverflow(length)
            guard !overflow, offset >= UInt64(FileHeader.size), end <= header.sectionTableOffset else {
                throw WebArcError.badSectionTable(
                    offset: entryOffset, reason: "section \(type) [\(offset), +\(length)) is outside the archive")
            }
            if SectionType.known.contains(type) {
                guard known[type] == nil else {
                    throw WebArcError.badSectionTable(offset: entryOffset, reason: "section \(type) appears twice")
                }
                let inBody = type == SectionType.bodyData
                if inBody ? (offset != UInt64(FileHeader.size) || end > header.indexOffset) : offset < header.indexOffset {
                    throw WebArcError.badSectionTable(
                        offset: entryOffset,
                        reason: inBody ? "BDAT must start at 128 and end before the index"
                            : "section \(type) starts before the index")
                }
                known[type] = entry
            } else if entry.isRequired {
                throw WebArcError.unsupportedSection(type: type, offset: entryOffset)
            }
            entries.append(entry)
        }
        for type in SectionType.known where known[type] == nil {
            throw WebArcError.badSectionTable(offset: header.sectionTableOffset, reason: "section \(type) is missing")
        }
        let sorted = entries.filter { $0.length > 0 }.sorted { $0.offset < $1.offset }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.end > next.offset {
            throw WebArcError.badSectionTable(
                offset: header.sectionTableOffset, reason: "sections \(previous.type) and \(next.type) overlap")
        }
        bodyData = known[SectionType.bodyData]!
        bodyTable = known[SectionType.bodyTable]!
        chunkTable = known[SectionType.chunkTable]!
        strings = known[SectionType.strings]!
        objects = known[SectionType.objects]!
        lookup = known[SectionType.lookup]!
        all = entries
    }
}
