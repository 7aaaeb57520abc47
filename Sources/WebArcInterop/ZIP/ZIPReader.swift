/// Reads a ZIP in place: the central directory with positioned reads, then each entry's data
/// where it lies, stored members as windows on the file (``window(of:)``) and small deflated ones
/// inflated into memory within a limit. Nothing is extracted to disk.
///
/// Every size and offset read from the file is checked against the file before it is used: the
/// end record and ZIP64 records must lie inside it, the central directory before them and no
/// larger than ``maxCentralDirectory``, its entry count no more than its bytes can hold, each
/// entry's data before the central directory, no two entries over the same bytes, no two of the
/// same name, and no name that is absolute or climbs out with `..`. A deflated entry that inflates
/// past its declared size stops there.
///
/// ```
/// | local header + data | local header + data | … | central directory | [ZIP64 end, locator] | end record |
///   ^ localHeaderOffset                            ^ directoryOffset                              ^ found from the end
/// ```
///
/// Spec: APPNOTE 6.3.10 §4.3 (layout), §4.4 (fields), §4.5.3 (ZIP64).
final class ZIPReader: Sendable {
    static let localHeaderSignature: UInt32 = 0x0403_4B50
    static let centralHeaderSignature: UInt32 = 0x0201_4B50
    static let endSignature: UInt32 = 0x0605_4B50
    static let zip64EndSignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    /// The largest central directory read (about 800 000 entries of short names).
    static let maxCentralDirectory = 64 << 20
    /// The most bytes a deflated entry is inflated to (WACZ deflates only its JSON and indexes).
    static let maxInflatedSize: UInt64 = 4 << 30
    /// The smallest central directory entry (§4.3.12 without name, extra and comment).
    static let centralHeaderSize = 46

    let file: InputFile
    /// The entries in central directory order.
    let entries: [ZIPEntry]
    /// Where the central directory starts: every entry's data lies before it.
    let directoryOffset: UInt64
    private let byName: [String: Int]

    /// Opens `file`, reading its end record, central directory and local headers.
    ///
    /// - Throws: ``InteropError/badZIP(file:reason:)`` for any structure that does not hold;
    ///   ``InteropError/io(path:operation:errno:)``.
    init(file: InputFile) throws {
        self.file = file
        let path = file.path
        func bad(_ reason: String) -> InteropError { .badZIP(file: path, reason: reason) }

        // §4.3.16: the end record is the last 22 bytes, plus a comment of up to 65 535.
        guard file.size >= 22 else {
            throw bad("\(file.size) bytes is too short for a ZIP end record: the file is truncated")
        }
        let tailLength = Int(min(file.size, 22 + 0xFFFF))
        let tailStart = file.size - UInt64(tailLength)
        let tail = try file.read(at: tailStart, count: tailLength)
        var endIndex: Int?
        var candidate = tail.count - 22
        while candidate >= 0 {
            var fields = ZIPFields(tail, at: candidate)
            if (try? fields.uint32()) == Self.endSignature {
                var comment = ZIPFields(tail, at: candidate + 20)
                if let length = try? comment.uint16(), candidate + 22 + Int(length) <= tail.count {
                    endIndex = candidate
                    break
                }
            }
            candidate -= 1
        }
        guard let endIndex else { throw bad("no end of central directory record: the file is truncated or not a ZIP") }
        let endOffset = tailStart + UInt64(endIndex)
        // The search above made sure 22 bytes follow.
        var end = ZIPFields(tail, at: endIndex + 4)
        let short = bad("the end record is cut short")
        var disk = UInt32(try Self.field(or: short) { try end.uint16() })
        var directoryDisk = UInt32(try Self.field(or: short) { try end.uint16() })
        var entriesOnDisk = UInt64(try Self.field(or: short) { try end.uint16() })
        var entryCount = UInt64(try Self.field(or: short) { try end.uint16() })
        var directorySize = UInt64(try Self.field(or: short) { try end.uint32() })
        var directoryOffset = UInt64(try Self.field(or: short) { try end.uint32() })
        var directoryLimit = endOffset

        // §4.3.15: a ZIP64 locator right before the end record points at the ZIP64 end record.
        if endOffset >= 20 {
            let locatorBytes = try file.read(at: endOffset - 20, count: 20)
            var locator = ZIPFields(locatorBytes)
            if (try? locator.uint32()) == Self.zip64LocatorSignature {
                let zip64Offset = try Self.field(or: bad("the ZIP64 locator is cut short")) {
                    try locator.skip(4)
                    return try locator.uint64()
                }
                guard zip64Offset <= endOffset - 20, endOffset - 20 - zip64Offset >= 56 else {
                    throw bad("the ZIP64 locator points at offset \(zip64Offset), past where a ZIP64 end record can be")
                }
                var zip64 = ZIPFields(try file.read(at: zip64Offset, count: 56))
                guard (try? zip64.uint32()) == Self.zip64EndSignature else {
                    throw bad(
                        "no ZIP64 end of central directory record at offset \(zip64Offset), where its locator points")
                }
                try Self.field(or: bad("the ZIP64 end record is cut short")) {
                    try zip64.skip(12)
                    disk = try zip64.uint32()
                    directoryDisk = try zip64.uint32()
                    entriesOnDisk = try zip64.uint64()
                    entryCount = try zip64.uint64()
                    directorySize = try zip64.uint64()
                    directoryOffset = try zip64.uint64()
                }
                directoryLimit = zip64Offset
            }
        }
        guard disk == 0, directoryDisk == 0, entriesOnDisk == entryCount else {
            throw bad("it is split across several disks, which webarc does not read")
        }
        guard directoryOffset <= directoryLimit, directorySize <= directoryLimit - directoryOffset else {
            throw bad(
                "the central directory (\(directorySize) bytes at offset \(directoryOffset)) does not end before the end record at \(directoryLimit)"
            )
        }
        guard directorySize <= UInt64(Self.maxCentralDirectory) else {
            throw bad(
                "its central directory is \(directorySize) bytes, more than the \(Self.maxCentralDirectory >> 20) MiB webarc reads"
            )
        }
        guard entryCount <= directorySize / UInt64(Self.centralHeaderSize) else {
            throw bad(
                "it declares \(entryCount) entries, more than its \(directorySize)-byte central directory can hold")
        }
        self.directoryOffset = directoryOffset

        let directory = try file.read(at: directoryOffset, count: Int(directorySize))
        var fields = ZIPFields(directory)
        var entries: [ZIPEntry] = []
        entries.reserveCapacity(Int(entryCount))
        var byName: [String: Int] = [:]
        for number in 0..<Int(entryCount) {
            let at = directoryOffset + UInt64(fields.index)
            let read = try Self.field(or: bad("the central directory ends inside entry \(number + 1)")) {
                try Self.centralEntry(&fields)
            }
            guard var entry = read else {
                throw bad("no central directory entry at offset \(at) (entry \(number + 1) of \(entryCount))")
            }
            if let problem = ZIPEntry.problem(with: entry.name) { throw bad(problem) }
            guard byName.updateValue(entries.count, forKey: entry.name) == nil else {
                throw bad("two entries are named \"\(ZIPEntry.shown(entry.name))\"")
            }
            entry.dataOffset = try Self.dataOffset(of: entry, in: file, before: directoryOffset, bad: bad)
            entries.append(entry)
        }
        let ordered = entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        for (first, second) in zip(ordered, ordered.dropFirst()) where first.dataEnd > second.localHeaderOffset {
            throw bad("entries \"\(ZIPEntry.shown(first.name))\" and \"\(ZIPEntry.shown(second.name))\" overlap")
        }
        self.entries = entries
        self.byName = byName
    }

    /// The entry named `name`, if any.
    func entry(_ name: String) -> ZIPEntry? { byName[name].map { entries[$0] } }

    /// A stored entry's data as a file of its own, read in place; its path in messages is
    /// `ZIP!/NAME`.
    ///
    /// - Throws: ``InteropError/badZIP(file:reason:)`` when the entry is compressed or encrypted.
    func window(of entry: ZIPEntry) throws -> InputFile {
        try checkReadable(entry)
        guard entry.method == ZIPEntry.stored else {
            throw InteropError.badZIP(
                file: file.path,
                reason: "entry \"\(ZIPEntry.shown(entry.name))\" is compressed and cannot be read in place")
        }
        return InputFile(window: file, offset: entry.dataOffset, size: entry.size, path: "\(file.path)!/\(entry.name)")
    }

    /// An entry's uncompressed bytes, whole, when it declares at most `limit` of them.
    ///
    /// - Throws: ``InteropError/badZIP(file:reason:)`` when it declares more, inflates to another
    ///   size, or its CRC-32 does not match; `io`.
    func contents(of entry: ZIPEntry, limit: Int) throws -> [UInt8] {
        guard entry.size <= UInt64(limit) else {
            throw InteropError.badZIP(
                file: file.path,
                reason:
                    "entry \"\(ZIPEntry.shown(entry.name))\" is \(entry.size) bytes, more than the \(limit) read into memory"
            )
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(entry.size))
        try forEachPiece(of: entry, checkingCRC: true) { bytes += $0 }
        return bytes
    }

    /// Calls `body` with an entry's uncompressed bytes in pieces of at most 1 MiB, front to back.
    ///
    /// - Parameter checkingCRC: compare the CRC-32 at the end (a stored WARC whose SHA-256 is
    ///   checked anyway skips it).
    /// - Throws: ``InteropError/badZIP(file:reason:)`` when the entry is encrypted or compressed
    ///   otherwise than deflate, when it inflates past its declared size or ends before it, or its
    ///   CRC-32 does not match; whatever `body` throws.
    func forEachPiece(of entry: ZIPEntry, checkingCRC: Bool, _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        try checkReadable(entry)
        let name = ZIPEntry.shown(entry.name)
        func bad(_ reason: String) -> InteropError { .badZIP(file: file.path, reason: "entry \"\(name)\" \(reason)") }
        var crc = CRC32()
        var produced: UInt64 = 0
        var offset = entry.dataOffset
        let piece = 1 << 20
        if entry.method == ZIPEntry.stored {
            while offset < entry.dataEnd {
                let bytes = try file.read(at: offset, count: Int(min(UInt64(piece), entry.dataEnd - offset)))
                guard !bytes.isEmpty else { throw bad("ends early: the file is truncated") }
                offset += UInt64(bytes.count)
                produced += UInt64(bytes.count)
                if checkingCRC { crc.update(bytes) }
                try body(bytes[...])
            }
        } else {
            // Deflate expands at most 1032 to 1; a member is also no larger than any WACZ's JSON or
            // index: past either, the declared size is a lie that would cost hours of inflating.
            let (expansion, overflow) = entry.compressedSize.multipliedReportingOverflow(by: 1032)
            guard !overflow, entry.size <= expansion + 1024, entry.size <= Self.maxInflatedSize else {
                throw bad(
                    "declares \(entry.size) bytes from \(entry.compressedSize) deflated, more than webarc inflates")
            }
            let inflater: Inflater
            do { inflater = try Inflater(format: .raw) } catch { throw bad("cannot be inflated: \(error.reason)") }
            var input: ArraySlice<UInt8> = []
            var output: [UInt8] = []
            while !inflater.finished {
                if input.isEmpty && offset < entry.dataEnd {
                    input = try file.read(at: offset, count: Int(min(UInt64(piece), entry.dataEnd - offset)))[...]
                    offset += UInt64(input.count)
                }
                output.removeAll(keepingCapacity: true)
                // One byte past the declared size is enough to know it lies.
                let room = Int(min(UInt64(piece), entry.size - produced + 1))
                let consumed: Int
                do { consumed = try inflater.inflate(input, into: &output, limit: room) } catch {
                    throw bad("does not inflate: \(error.reason)")
                }
                input = input.dropFirst(consumed)
                produced += UInt64(output.count)
                guard produced <= entry.size else { throw bad("inflates past its declared \(entry.size) bytes") }
                if output.isEmpty && consumed == 0 && !inflater.finished && input.isEmpty && offset >= entry.dataEnd {
                    throw bad("ends before its deflate stream does")
                }
                if checkingCRC { crc.update(output) }
                if !output.isEmpty { try body(output[...]) }
            }
        }
        guard produced == entry.size else {
            throw bad("holds \(produced) bytes, not the \(entry.size) its directory entry declares")
        }
        guard !checkingCRC || crc.value == entry.crc32 else {
            throw bad(
                "has CRC-32 \(Self.hex(crc.value)), not the \(Self.hex(entry.crc32)) its directory entry declares: it is damaged"
            )
        }
    }

    private func checkReadable(_ entry: ZIPEntry) throws {
        let name = ZIPEntry.shown(entry.name)
        if entry.isEncrypted { throw InteropError.badZIP(file: file.path, reason: "entry \"\(name)\" is encrypted") }
        guard entry.method == ZIPEntry.stored || entry.method == ZIPEntry.deflated else {
            throw InteropError.badZIP(
                file: file.path,
                reason:
                    "entry \"\(name)\" uses compression method \(entry.method); webarc reads stored and deflated entries"
            )
        }
    }

    /// Reads one central directory header (§4.3.12) and its ZIP64 extra field; nil when the
    /// signature is wrong.
    private static func centralEntry(_ fields: inout ZIPFields) throws -> ZIPEntry? {
        guard try fields.uint32() == centralHeaderSignature else { return nil }
        try fields.skip(4)
        let flags = try fields.uint16()
        let method = try fields.uint16()
        try fields.skip(4)
        let crc = try fields.uint32()
        var compressedSize = UInt64(try fields.uint32())
        var size = UInt64(try fields.uint32())
        let nameLength = Int(try fields.uint16())
        let extraLength = Int(try fields.uint16())
        let commentLength = Int(try fields.uint16())
        try fields.skip(8)
        var localHeaderOffset = UInt64(try fields.uint32())
        let name = String(decoding: try fields.bytes(nameLength), as: UTF8.self)
        var extra = ZIPFields(Array(try fields.bytes(extraLength)))
        try fields.skip(commentLength)
        // §4.5.3: the ZIP64 field holds, in this order, only the values whose 32-bit field is all ones.
        while extra.remaining >= 4 {
            let id = try extra.uint16()
            let length = Int(try extra.uint16())
            guard id == 0x0001 else {
                try extra.skip(min(length, extra.remaining))
                continue
            }
            var zip64 = ZIPFields(Array(try extra.bytes(min(length, extra.remaining))))
            if size == 0xFFFF_FFFF { size = try zip64.uint64() }
            if compressedSize == 0xFFFF_FFFF { compressedSize = try zip64.uint64() }
            if localHeaderOffset == 0xFFFF_FFFF { localHeaderOffset = try zip64.uint64() }
        }
        return ZIPEntry(
            name: name, method: method, flags: flags, crc32: crc, compressedSize: compressedSize, size: size,
            localHeaderOffset: localHeaderOffset)
    }

    /// Reads `entry`'s local header (§4.3.7) and returns where its data starts, checking that the
    /// header names the same file and that the data ends before the central directory.
    private static func dataOffset(
        of entry: ZIPEntry, in file: InputFile, before directoryOffset: UInt64, bad: (String) -> InteropError
    ) throws -> UInt64 {
        let name = ZIPEntry.shown(entry.name)
        guard entry.localHeaderOffset <= directoryOffset, directoryOffset - entry.localHeaderOffset >= 30 else {
            throw bad(
                "entry \"\(name)\" starts at offset \(entry.localHeaderOffset), past the central directory at \(directoryOffset)"
            )
        }
        // A name that is not UTF-8 decodes to more bytes than it has: enough are read either way.
        let header = try file.read(at: entry.localHeaderOffset, count: 30 + entry.name.utf8.count)
        var fields = ZIPFields(header)
        let (signature, nameLength, extraLength, storedName) = try field(
            or: bad("entry \"\(name)\"'s local header is cut short")
        ) {
            let signature = try fields.uint32()
            try fields.skip(22)
            let nameLength = try fields.uint16()
            let extraLength = try fields.uint16()
            return (signature, nameLength, extraLength, try fields.bytes(min(Int(nameLength), fields.remaining)))
        }
        guard signature == localHeaderSignature else {
            throw bad("no local header at offset \(entry.localHeaderOffset) for entry \"\(name)\"")
        }
        guard String(decoding: storedName, as: UTF8.self) == entry.name else {
            throw bad("entry \"\(name)\"'s local header names another file")
        }
        let start = entry.localHeaderOffset + 30 + UInt64(nameLength) + UInt64(extraLength)
        let (end, overflow) = start.addingReportingOverflow(entry.compressedSize)
        guard !overflow, end <= directoryOffset else {
            throw bad(
                "entry \"\(name)\" declares \(entry.compressedSize) bytes at offset \(start), past the central directory at \(directoryOffset)"
            )
        }
        if entry.method == ZIPEntry.stored && entry.compressedSize != entry.size {
            throw bad(
                "stored entry \"\(name)\" declares \(entry.compressedSize) bytes in the file and \(entry.size) uncompressed"
            )
        }
        return start
    }

    /// Runs a read of fields, turning a short read into `error`.
    private static func field<Value>(or failure: InteropError, _ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch {
            throw failure
        }
    }

    static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }
}
