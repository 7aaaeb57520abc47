import Foundation

/// Writes a ZIP whose entries are all stored (no compression), as WACZ asks, through an
/// ``InteropOutputFile``: an entry's bytes may be streamed straight into the file (the WARC of a
/// WACZ, whose size is known only at its end), and its local header is filled in afterwards.
/// ZIP64 fields are written where a size, an offset or the entry count needs them.
///
/// Each entry's CRC-32, size and SHA-256 are computed from the bytes as they are appended, so
/// nothing is read back.
///
/// Spec: APPNOTE 6.3.10 §4.3.7 (local header), §4.3.12 (central directory), §4.3.14–16 (end
/// records), §4.5.3 (ZIP64 extra field).
final class ZIPWriter {
    /// An entry written, for the central directory and the caller's manifest.
    struct Written {
        /// The entry as the central directory describes it (``ZIPEntry/dataOffset`` included).
        var entry: ZIPEntry
        var sha256: WACZDigest
        /// Whether the local header holds its sizes in a ZIP64 extra field.
        var zip64Local: Bool

        var name: String { entry.name }
        var size: UInt64 { entry.size }
    }

    /// The running checksums of the entry being written.
    private final class Running {
        var crc = CRC32()
        var sha256 = WACZHasher(.sha256)
        var size: UInt64 = 0
    }

    static let versionNeeded: UInt16 = 20
    static let versionNeededZIP64: UInt16 = 45
    /// Unix, APPNOTE 4.5: regular files read-write for the owner, readable by all.
    static let versionMadeBy: UInt16 = 3 << 8 | 45
    static let externalAttributes: UInt32 = 0o100644 << 16
    /// Bit 11: names are UTF-8.
    static let flags: UInt16 = 0x0800
    static let all32: UInt64 = 0xFFFF_FFFF

    let file: InteropOutputFile
    private(set) var written: [Written] = []
    private let dosTime: UInt16
    private let dosDate: UInt16
    private var open: (name: String, offset: UInt64, zip64: Bool, running: Running)?

    /// Makes a writer whose entries carry `date` (UTC) as their modification time.
    init(file: InteropOutputFile, date: Date) {
        self.file = file
        var time = time_t(max(0, date.timeIntervalSince1970))
        var parts = tm()
        gmtime_r(&time, &parts)
        let year = min(max(Int(parts.tm_year) + 1900, 1980), 2107)
        dosDate = UInt16(year - 1980) << 9 | UInt16(parts.tm_mon + 1) << 5 | UInt16(parts.tm_mday)
        dosTime = UInt16(parts.tm_hour) << 11 | UInt16(parts.tm_min) << 5 | UInt16(parts.tm_sec / 2)
    }

    /// Writes a whole entry.
    @discardableResult
    func add(_ name: String, _ bytes: [UInt8]) throws -> Written {
        try beginEntry(name, zip64: UInt64(bytes.count) >= Self.all32)
        try file.append(bytes)
        return try finishEntry()
    }

    /// Writes an entry's local header; the caller then appends its bytes to ``file`` and calls
    /// ``finishEntry()``.
    ///
    /// - Parameter zip64: whether the local header keeps its sizes in a ZIP64 extra field: needed
    ///   when the entry may reach 4 GiB, since the header's size cannot change once written.
    func beginEntry(_ name: String, zip64: Bool) throws {
        precondition(open == nil, "an entry is already open")
        let nameBytes = Array(name.utf8)
        var header = ZIPFieldWriter()
        header.uint32(ZIPReader.localHeaderSignature)
        header.uint16(zip64 ? Self.versionNeededZIP64 : Self.versionNeeded)
        header.uint16(Self.flags)
        header.uint16(ZIPEntry.stored)
        header.uint16(dosTime)
        header.uint16(dosDate)
        header.uint32(0)  // CRC-32, filled in by finishEntry
        header.uint32(zip64 ? UInt32(Self.all32) : 0)
        header.uint32(zip64 ? UInt32(Self.all32) : 0)
        header.uint16(UInt16(nameBytes.count))
        header.uint16(zip64 ? 20 : 0)
        header.append(nameBytes)
        if zip64 {
            header.uint16(0x0001)
            header.uint16(16)
            header.uint64(0)
            header.uint64(0)
        }
        let offset = file.length
        try file.append(header.bytes)
        let running = Running()
        open = (name, offset, zip64, running)
        file.tap = { buffer in
            running.crc.update(buffer)
            running.sha256.update(buffer)
            running.size += UInt64(buffer.count)
        }
    }

    /// Ends the open entry: fills in its local header's CRC-32 and sizes.
    func finishEntry() throws -> Written {
        guard let open else { preconditionFailure("no entry is open") }
        file.tap = nil
        self.open = nil
        let running = open.running
        precondition(open.zip64 || running.size < Self.all32, "\(open.name) reached 4 GiB without a ZIP64 local header")
        var crc = ZIPFieldWriter()
        crc.uint32(running.crc.value)
        if open.zip64 {
            try file.overwrite(crc.bytes, at: open.offset + 14)
            var sizes = ZIPFieldWriter()
            sizes.uint64(running.size)
            sizes.uint64(running.size)
            try file.overwrite(sizes.bytes, at: open.offset + 30 + UInt64(open.name.utf8.count) + 4)
        } else {
            crc.uint32(UInt32(running.size))
            crc.uint32(UInt32(running.size))
            try file.overwrite(crc.bytes, at: open.offset + 14)
        }
        let entry = ZIPEntry(
            name: open.name, method: ZIPEntry.stored, flags: Self.flags, crc32: running.crc.value,
            compressedSize: running.size,
            size: running.size, localHeaderOffset: open.offset,
            dataOffset: open.offset + 30 + UInt64(open.name.utf8.count) + (open.zip64 ? 20 : 0))
        let written = Written(entry: entry, sha256: running.sha256.finalize(), zip64Local: open.zip64)
        self.written.append(written)
        return written
    }

    /// Writes the central directory and the end records.
    func finish() throws {
        precondition(open == nil, "an entry is still open")
        let directoryOffset = file.length
        for written in written {
            let entry = written.entry
            let nameBytes = Array(entry.name.utf8)
            let sizesIn64 = written.zip64Local || entry.size >= Self.all32
            let offsetIn64 = entry.localHeaderOffset >= Self.all32
            var extra = ZIPFieldWriter()
            if sizesIn64 || offsetIn64 {
                extra.uint16(0x0001)
                extra.uint16(UInt16((sizesIn64 ? 16 : 0) + (offsetIn64 ? 8 : 0)))
                if sizesIn64 {
                    extra.uint64(entry.size)
                    extra.uint64(entry.size)
                }
                if offsetIn64 { extra.uint64(entry.localHeaderOffset) }
            }
            var header = ZIPFieldWriter()
            header.uint32(ZIPReader.centralHeaderSignature)
            header.uint16(Self.versionMadeBy)
            header.uint16(sizesIn64 || offsetIn64 ? Self.versionNeededZIP64 : Self.versionNeeded)
            header.uint16(Self.flags)
            header.uint16(ZIPEntry.stored)
            header.uint16(dosTime)
            header.uint16(dosDate)
            header.uint32(entry.crc32)
            header.uint32(UInt32(sizesIn64 ? Self.all32 : entry.size))
            header.uint32(UInt32(sizesIn64 ? Self.all32 : entry.size))
            header.uint16(UInt16(nameBytes.count))
            header.uint16(UInt16(extra.bytes.count))
            header.uint16(0)
            header.uint16(0)
            header.uint16(0)
            header.uint32(Self.externalAttributes)
            header.uint32(UInt32(offsetIn64 ? Self.all32 : entry.localHeaderOffset))
            header.append(nameBytes)
            header.append(extra.bytes)
            try file.append(header.bytes)
        }
        let directorySize = file.length - directoryOffset
        let count = UInt64(written.count)
        var end = ZIPFieldWriter()
        if count >= 0xFFFF || directoryOffset >= Self.all32 || directorySize >= Self.all32 {
            let zip64End = file.length
            end.uint32(ZIPReader.zip64EndSignature)
            end.uint64(44)
            end.uint16(Self.versionMadeBy)
            end.uint16(Self.versionNeededZIP64)
            end.uint32(0)
            end.uint32(0)
            end.uint64(count)
            end.uint64(count)
            end.uint64(directorySize)
            end.uint64(directoryOffset)
            end.uint32(ZIPReader.zip64LocatorSignature)
            end.uint32(0)
            end.uint64(zip64End)
            end.uint32(1)
        }
        end.uint32(ZIPReader.endSignature)
        end.uint16(0)
        end.uint16(0)
        end.uint16(UInt16(min(count, 0xFFFF)))
        end.uint16(UInt16(min(count, 0xFFFF)))
        end.uint32(UInt32(min(directorySize, Self.all32)))
        end.uint32(UInt32(min(directoryOffset, Self.all32)))
        end.uint16(0)
        try file.append(end.bytes)
    }
}
