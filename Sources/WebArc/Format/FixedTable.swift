/// A section of fixed-size entries after a 16-byte preamble (`entrySize`, reserved, `count`):
/// the layout shared by the body, chunk and lookup tables.
///
/// Spec: §5.3 (preamble), §5.4, §7.2.
struct FixedTable: Sendable {
    static let preambleSize = 16

    let name: String
    let section: SectionEntry
    let entrySize: Int
    let count: Int

    /// Reads and checks the preamble: `entrySize` at least `minimumEntrySize`, and the entries
    /// filling the section exactly.
    ///
    /// - Throws: `truncated` or `corruptIndex`.
    init(section: SectionEntry, minimumEntrySize: Int, source: any ByteSource) throws {
        name = section.type
        self.section = section
        guard section.length >= UInt64(Self.preambleSize) else {
            throw WebArcError.truncated(
                section: section.type, offset: section.offset, needed: UInt64(Self.preambleSize), available: section.length)
        }
        var reader = ByteReader(
            try source.read(at: section.offset, count: Self.preambleSize), baseOffset: section.offset,
            section: section.type)
        let entrySize = try reader.readUInt32()
        try reader.skip(4)
        let count = try reader.readUInt64()
        guard entrySize >= UInt32(minimumEntrySize) else {
            throw WebArcError.corruptIndex(
                section: section.type, offset: section.offset, reason: "entry size \(entrySize) is below \(minimumEntrySize)")
        }
        let available = section.length - UInt64(Self.preambleSize)
        guard count <= available / UInt64(entrySize), count * UInt64(entrySize) == available else {
            throw WebArcError.corruptIndex(
                section: section.type, offset: section.offset + 8,
                reason: "\(count) entries of \(entrySize) bytes do not fill \(available) bytes")
        }
        self.entrySize = Int(entrySize)
        self.count = Int(count)
    }

    /// Absolute offset of entry `index`.
    func offset(of index: Int) -> UInt64 {
        section.offset + UInt64(Self.preambleSize) + UInt64(index) * UInt64(entrySize)
    }

    /// Reads entries `range` in one read; the reader's cursor steps `entrySize` per entry.
    func read(_ range: Range<Int>, from source: any ByteSource) throws -> [UInt8] {
        guard !range.isEmpty else { return [] }
        return try source.read(at: offset(of: range.lowerBound), count: range.count * entrySize)
    }

    /// A cursor over one entry's bytes.
    func entry(_ index: Int, from source: any ByteSource) throws -> ByteReader {
        ByteReader(try read(index..<index + 1, from: source), baseOffset: offset(of: index), section: name)
    }
}

/// A section of variable-length items located by an `ends` array (`count`, reserved, `ends[count+1]`,
/// byte area): the layout shared by the string and object tables.
///
/// Spec: §6.1, §6.2.
struct OffsetTable: Sendable {
    let name: String
    let section: SectionEntry
    let count: Int
    /// Absolute offset of the byte area.
    let areaOffset: UInt64
    let areaLength: UInt64

    /// Reads `count` and checks that the `ends` array fits the section.
    init(section: SectionEntry, source: any ByteSource) throws {
        name = section.type
        self.section = section
        guard section.length >= 16 else {
            throw WebArcError.truncated(section: section.type, offset: section.offset, needed: 16, available: section.length)
        }
        var reader = ByteReader(try source.read(at: section.offset, count: 8), baseOffset: section.offset, section: name)
        let count = UInt64(try reader.readUInt32())
        let endsLength = 8 * (count + 1)
        guard endsLength <= section.length - 8 else {
            throw WebArcError.corruptIndex(
                section: name, offset: section.offset, reason: "\(count) items do not fit in \(section.length) bytes")
        }
        self.count = Int(count)
        areaOffset = section.offset + 8 + endsLength
        areaLength = section.length - 8 - endsLength
    }

    /// The absolute offset and length of item `index`, read from `ends[index]` and `ends[index+1]`.
    ///
    /// - Throws: `corruptIndex` when the id is out of range or the ends are out of order or bounds.
    func extent(of index: Int, from source: any ByteSource) throws -> (offset: UInt64, length: Int) {
        guard index >= 0, index < count else {
            throw WebArcError.corruptIndex(
                section: name, offset: section.offset, reason: "id \(index) is out of range (\(count) items)")
        }
        let endsOffset = section.offset + 8 + 8 * UInt64(index)
        var reader = ByteReader(try source.read(at: endsOffset, count: 16), baseOffset: endsOffset, section: name)
        let start = try reader.readUInt64()
        let end = try reader.readUInt64()
        guard start <= end, end <= areaLength, index > 0 || start == 0 else {
            throw WebArcError.corruptIndex(
                section: name, offset: endsOffset, reason: "item \(index) ends [\(start), \(end)) break the table")
        }
        return (areaOffset + start, Int(end - start))
    }

    /// Reads item `index` whole.
    func item(_ index: Int, from source: any ByteSource) throws -> ByteReader {
        let (offset, length) = try extent(of: index, from: source)
        return ByteReader(try source.read(at: offset, count: length), baseOffset: offset, section: name)
    }

    /// Encodes items into the section layout.
    static func serialize(_ items: [[UInt8]]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt32(items.count))
        writer.write(UInt32(0))
        var end: UInt64 = 0
        writer.write(end)
        for item in items {
            end += UInt64(item.count)
            writer.write(end)
        }
        for item in items { writer.write(bytes: item) }
        return writer.bytes
    }
}
