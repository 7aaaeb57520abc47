import WebArc

/// A version 4 block read as far as a walk needs it (spec §17.2: a reader MAY leave what it does
/// not need undecoded): its documents at once, then each posting's count, title bit and length
/// code only up to the last document asked for. A top-k walk tests a few documents per block of a
/// common term, so it skips most of the packed codes and every other document's norm. A class:
/// a walk keeps one per list and reads on into it.
final class PartialRiceBlock {
    /// The block's number in its list.
    let number: Int
    /// The block's documents, ascending.
    let documents: [Int]
    private let skip: BlockPostings.Skip
    /// The packed values read so far (count − 1 and title bit), and the bit where the next starts.
    private var packed: [UInt64] = []
    private var nextBit: Int
    /// The norm page the last length code came from: its first document and its codes.
    private var norms: (first: Int, codes: ArraySlice<UInt8>)?

    /// Block `number`'s documents, checked against its skip entry (count, last document).
    init(_ bytes: [UInt8], _ skips: [BlockPostings.Skip], _ number: Int, page: UInt64) throws {
        let skip = skips[number]
        self.number = number
        self.skip = skip
        var document = number == 0 ? -1 : skips[number - 1].lastDocument
        var documents: [Int] = []
        documents.reserveCapacity(skip.count)
        let read: Int? = bytes.withUnsafeBytes { raw in
            var reader = RiceReader(raw, range: skip.start..<skip.end)
            for _ in 0..<skip.count {
                guard let delta = reader.read(k: skip.deltaBits, valueBits: RicePostings.valueBits.delta) else {
                    return nil
                }
                document += Int(delta) + 1
                documents.append(document)
            }
            return reader.position
        }
        guard let read, document == skip.lastDocument else { throw Self.mismatch(number, page: page) }
        self.documents = documents
        packed.reserveCapacity(skip.count)
        nextBit = read
    }

    /// The posting of the document at `index` of ``documents``: its count and title bit read up to
    /// there, its length code from `norms`; each checked against the skip entry's bounds, so that
    /// no weight passes the block's bound.
    func posting(at index: Int, _ bytes: [UInt8], norms lookup: NormLookup, page: UInt64) throws -> Posting {
        if index >= packed.count {
            let skip = skip
            let read: Int? = bytes.withUnsafeBytes { raw in
                var reader = RiceReader(raw, range: skip.start..<skip.end, from: nextBit)
                while packed.count <= index {
                    guard let value = reader.read(k: skip.packedBits, valueBits: RicePostings.valueBits.packed),
                        Int(value >> 1) + 1 <= skip.maxFrequency, value & 1 == 0 || skip.anyInTitle
                    else { return nil }
                    packed.append(value)
                }
                return reader.position
            }
            guard let read else { throw Self.mismatch(number, page: page) }
            nextBit = read
        }
        let document = documents[index]
        // Documents only grow, so the page at hand is passed only forwards.
        if norms == nil || document - norms!.first >= norms!.codes.count {
            norms = (document - document % lookup.span, try lookup.page(document / lookup.span))
        }
        let lengthCode = norms!.codes[norms!.codes.startIndex + document - norms!.first]
        guard lengthCode >= skip.minLengthCode else { throw Self.mismatch(number, page: page) }
        let value = packed[index]
        return Posting(
            document: document, frequency: Int(value >> 1) + 1, inTitle: value & 1 == 1, lengthCode: lengthCode)
    }

    private static func mismatch(_ number: Int, page: UInt64) -> WebArcError {
        .corruptPage(page: page, position: nil, reason: "postings: block \(number) does not match its skip entry")
    }
}
