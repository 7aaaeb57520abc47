/// The bytes after `archiveLength`: typed blocks (signatures), then the appendix length and end magic.
///
/// ```
/// | type length bytes | type length bytes | … | appendixLength (u64) | \nGISCRAW |
/// ```
/// Signing appends or replaces the appendix; the archive's bytes never change.
/// Spec: §12.1 Appendix.
package struct ArchiveAppendix: Equatable, Sendable {
    /// `\nGISCRAW`, the last 8 bytes of a file with an appendix.
    package static let endMagic: [UInt8] = [0x0A, 0x47, 0x49, 0x53, 0x43, 0x52, 0x41, 0x57]
    /// Bytes of the length field and end magic.
    package static let footerSize = 16
    /// Block type 1: an Ed25519 signature (spec §12.2).
    package static let signatureBlockType: UInt32 = 1
    /// Bytes of a signature block (spec §12.2).
    package static let signatureBlockLength: UInt32 = 120

    /// One block of the appendix.
    package struct Block: Equatable, Sendable {
        /// The block type (1: a signature; others are skipped by readers).
        package var type: UInt32
        /// The block's bytes, its length as stored.
        package var bytes: [UInt8]
        /// Absolute offset of the block's type field.
        package var offset: UInt64
    }

    /// The blocks in order.
    package var blocks: [Block]

    /// Decodes an appendix: the bytes from `archiveLength` to the end of the file.
    ///
    /// - Parameter offset: the absolute offset of `bytes[0]` (the archive length).
    /// - Throws: `badAppendix` (at the `appendixLength` field) when the blocks do not fill the space
    ///   before the length field exactly, a signature block is not 120 bytes, or the footer is wrong.
    package init(parsing bytes: [UInt8], at offset: UInt64) throws {
        let lengthOffset = offset + UInt64(max(bytes.count - Self.footerSize, 0))
        func bad(_ reason: String) -> WebArcError { .badAppendix(offset: lengthOffset, reason: reason) }
        guard bytes.count >= Self.footerSize, Array(bytes.suffix(8)) == Self.endMagic else {
            throw bad("no appendix end magic")
        }
        var footer = ByteReader(
            bytes, region: .file(section: "appendix", offset: offset), range: bytes.count - 16..<bytes.count - 8)
        let declared = try footer.readUInt64()
        guard declared == UInt64(bytes.count) else {
            throw bad("appendixLength \(declared), but the appendix holds \(bytes.count) bytes")
        }
        var reader = ByteReader(
            bytes, region: .file(section: "appendix", offset: offset), range: 0..<bytes.count - Self.footerSize)
        var blocks: [Block] = []
        while !reader.isAtEnd {
            let blockOffset = offset + UInt64(reader.position)
            guard reader.remaining >= 8 else {
                throw bad("\(reader.remaining) bytes before the length field are not a block")
            }
            let type = try reader.readUInt32()
            let length = try reader.readUInt32()
            guard UInt64(length) <= UInt64(reader.remaining) else {
                throw bad("block at \(blockOffset) claims \(length) bytes, \(reader.remaining) remain")
            }
            guard type != Self.signatureBlockType || length == Self.signatureBlockLength else {
                throw bad("signature block at \(blockOffset) is \(length) bytes, not \(Self.signatureBlockLength)")
            }
            blocks.append(Block(type: type, bytes: try reader.readBytes(Int(length)), offset: blockOffset))
        }
        self.blocks = blocks
    }

    /// Where the archive ends in a file of `fileLength` bytes whose last bytes are `tail`: the file
    /// length when it ends with the trailer's end magic, less the appendix when it ends with the
    /// appendix's (spec §4.3 step 3).
    ///
    /// - Parameter tail: at least the last 16 bytes of the file.
    /// - Throws: `truncated` (at the file length) when the file is shorter than lead and trailer or
    ///   ends with neither magic; `badAppendix` when the appendix length is impossible.
    static func archiveEnd(tail: [UInt8], fileLength: UInt64) throws -> UInt64 {
        let minimum = UInt64(Lead.size + Trailer.size)
        guard fileLength >= minimum, tail.count >= 16 else {
            throw WebArcError.truncated(section: "archive", offset: fileLength, needed: minimum, available: fileLength)
        }
        let last = Array(tail.suffix(8))
        if last == Trailer.endMagic { return fileLength }
        guard last == endMagic else {
            throw WebArcError.truncated(
                section: "trailer", offset: fileLength, needed: UInt64(Trailer.size), available: 0)
        }
        var reader = ByteReader(
            tail, region: .file(section: "appendix", offset: fileLength - UInt64(tail.count)),
            range: tail.count - 16..<tail.count - 8)
        let length = try reader.readUInt64()
        let lengthOffset = fileLength - 16
        guard length >= UInt64(footerSize), length <= fileLength - minimum else {
            throw WebArcError.badAppendix(
                offset: lengthOffset, reason: "appendixLength \(length) does not fit a file of \(fileLength) bytes")
        }
        guard length <= FormatBounds.maxAppendixLength else {
            throw WebArcError.badAppendix(offset: lengthOffset, reason: "appendixLength \(length) is over 1 MiB")
        }
        return fileLength - length
    }

    /// Encodes blocks into an appendix.
    package static func encode(_ blocks: [(type: UInt32, bytes: [UInt8])]) -> [UInt8] {
        var writer = ByteWriter()
        for block in blocks {
            writer.write(block.type)
            writer.writeLengthPrefixed(block.bytes)
        }
        writer.write(UInt64(writer.count + footerSize))
        writer.write(bytes: endMagic)
        return writer.bytes
    }
}
