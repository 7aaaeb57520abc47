import WebArc

/// Wraps decoded page contents into an archive whose digests, page references and trailer are all
/// recomputed, so that a fuzzer's crafted pages get past the trailer check and the page digests to
/// the page, object, body-entry and chunk-entry parsers behind them.
///
/// Input: pieces separated by ``separator``:
///
/// ```
/// header | body data | metadata page | record root | body root | other pages…
/// ```
///
/// - header (16 bytes, zero-padded): `requiredFeatures` (u8), `minorVersion` (u8), the heights of
///   the record root and the body root (u8 each), `recordCount` and `bodyCount` (u32 LE each), the
///   rest reserved.
/// - body data: stored at offset 16, so chunk entries of the pages name absolute offsets in it.
/// - pages: stored raw (codec 0) one after the other after the body data, in input order. In an
///   interior page (type 1) and a search page (type 5), each child reference's `offset` field is
///   the index of a later piece (2 is the metadata page): its offset, lengths, codec and digest are
///   rewritten to name that piece (its `height` and reserved bytes are kept as given); so is the
///   metadata object's `search` reference (a 56-byte `bytes` field, spec §7.3).
/// - header byte 12 is the trailer's `optionalFeatures` (bit 0: a search index).
public enum PageArchive {
    /// Between two pieces of the input.
    public static let separator: [UInt8] = [0xFE, 0x50, 0x41, 0x47, 0x45, 0xFF]  // "\xFEPAGE\xFF"
    static let leadSize = 16
    static let trailerSize = 256
    static let referenceSize = 56

    /// The archive for `input`.
    public static func wrap(_ input: [UInt8]) -> [UInt8] { wrap(pieces: split(input)) }

    /// The archive for the input's pieces, already split.
    public static func wrap(pieces: [[UInt8]]) -> [UInt8] {
        var pieces = pieces
        while pieces.count < 5 { pieces.append([]) }
        var header = pieces[0].prefix(16).map { $0 }
        header += [UInt8](repeating: 0, count: 16 - header.count)
        let bodyData = pieces[1]
        var pages = Array(pieces[2...])

        let pagesStart = leadSize + bodyData.count
        var offsets: [Int] = []
        var position = pagesStart
        for page in pages {
            offsets.append(position)
            position += page.count
        }
        let archiveLength = position + trailerSize
        // Children come after their parents in the input, so pages are sealed from the last.
        var digests = [SHA256Hash](repeating: SHA256Hash.ofEmpty, count: pages.count)
        for index in pages.indices.reversed() {
            patchChildren(&pages[index], index: index, offsets: offsets, pages: pages)
            digests[index] = SHA256Hash.of(pages[index])
        }

        var out: [UInt8] = [0x89, 0x57, 0x45, 0x42, 0x41, 0x52, 0x43, 0x0A, 2, 0, header[1], 0, 0, 0, 0, 0]
        out += bodyData
        for page in pages { out += page }
        var trailer: [UInt8] = [0x89, 0x57, 0x45, 0x42, 0x41, 0x52, 0x43, 0x54, 2, 0, header[1], 0, 0, 0, 0, 0]
        append(UInt64(header[0]), 8, to: &trailer)
        append(UInt64(header[12]), 8, to: &trailer)
        append(UInt64(archiveLength), 8, to: &trailer)
        append(UInt64(pagesStart), 8, to: &trailer)
        append(UInt64(read32(header, 4)), 8, to: &trailer)
        append(UInt64(read32(header, 8)), 8, to: &trailer)
        for (index, height) in [(0, UInt8(0)), (1, header[2]), (2, header[3])] {
            trailer += reference(
                offset: offsets[index], length: pages[index].count, height: height, digest: digests[index])
        }
        append(0, 8, to: &trailer)
        trailer += SHA256Hash.of(trailer).bytes.prefix(8)
        trailer += [0x0A, 0x54, 0x43, 0x52, 0x41, 0x42, 0x45, 0x57]
        return out + trailer
    }

    /// The pieces of `input` between separators.
    public static func split(_ input: [UInt8]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var start = 0
        var index = 0
        while index + separator.count <= input.count {
            if input[index] == separator[0] && input[index..<index + separator.count].elementsEqual(separator) {
                pieces.append(Array(input[start..<index]))
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(Array(input[start...]))
        return pieces
    }

    /// Rewrites the page references of an interior page, a search page or the metadata page that
    /// name pieces by index; stops where the page stops parsing.
    static func patchChildren(_ page: inout [UInt8], index: Int, offsets: [Int], pages: [[UInt8]]) {
        guard page.count >= 8 else { return }
        let count = read32(page, 4)
        var position = 8
        switch page[0] {
        case 1:
            for _ in 0..<min(count, 1 << 16) {
                guard position + 4 <= page.count else { return }
                let keyLength = Int(read32(page, position))
                guard keyLength <= page.count - position - 4 - referenceSize else { return }
                position += 4 + keyLength
                patchReference(&page, at: position, index: index, offsets: offsets, pages: pages)
                position += referenceSize
            }
        case 5:
            for _ in 0..<min(count, 1 << 16) {
                guard position + referenceSize <= page.count else { return }
                patchReference(&page, at: position, index: index, offsets: offsets, pages: pages)
                position += referenceSize
            }
        case 4:
            if let field = searchField(page) {
                patchReference(&page, at: field, index: index, offsets: offsets, pages: pages)
            }
        default:
            return
        }
    }

    /// Where the metadata page's `Archive` object holds a 56-byte `search` field, or nil.
    static func searchField(_ page: [UInt8]) -> Int? {
        guard page.count >= 12 else { return nil }
        var position = 8 + 4 + Int(read32(page, 8))
        guard position + 4 <= page.count else { return nil }
        let fields = read32(page, position)
        position += 4
        for _ in 0..<min(fields, 1 << 16) {
            guard position + 4 <= page.count else { return nil }
            let keyLength = Int(read32(page, position))
            guard keyLength <= page.count - position - 9 else { return nil }
            let key = page[position + 4..<position + 4 + keyLength]
            position += 4 + keyLength
            let type = page[position]
            let length = Int(read32(page, position + 1))
            position += 5
            guard length <= page.count - position else { return nil }
            if key.elementsEqual("search".utf8), type == 6, length == referenceSize { return position }
            position += length
        }
        return nil
    }

    /// Rewrites the page reference at `position` when its `offset` field names a later piece.
    static func patchReference(_ page: inout [UInt8], at position: Int, index: Int, offsets: [Int], pages: [[UInt8]]) {
        var child = 0
        for byte in page[position..<position + 8].reversed() { child = child << 8 | Int(byte) }
        guard child >= 2, child - 2 > index, child - 2 < pages.count else { return }
        let target = child - 2
        let height = page[position + 17]
        let reserved = Array(page[position + 18..<position + 24])
        var bytes = reference(
            offset: offsets[target], length: pages[target].count, height: height, digest: SHA256Hash.of(pages[target]))
        bytes.replaceSubrange(18..<24, with: reserved)
        page.replaceSubrange(position..<position + referenceSize, with: bytes)
    }

    /// A raw (codec 0) page reference.
    static func reference(offset: Int, length: Int, height: UInt8, digest: SHA256Hash) -> [UInt8] {
        var bytes: [UInt8] = []
        append(UInt64(offset), 8, to: &bytes)
        append(UInt64(length), 4, to: &bytes)
        append(UInt64(length), 4, to: &bytes)
        bytes += [0, height, 0, 0, 0, 0, 0, 0]
        return bytes + digest.bytes
    }

    static func append(_ value: UInt64, _ width: Int, to bytes: inout [UInt8]) {
        for shift in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
    }

    static func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }
}
