/// Reads a WARC file front to back, plain or gzip, and knows for every byte where it came from.
///
/// A gzip file is read as its members one after another, whether it has one member per record
/// (WARC 1.1 Annex D), one for the whole file, or members cut anywhere. Positions are kept per
/// member so messages can name the member's offset in the file (what `warcio index` prints) and
/// the offset inside it; ``seek(to:)`` goes back to a record found earlier without re-reading
/// the file from the start when it has one member per record.
///
/// ```
/// file:   | member @0 ........ | member @516 ...... | member @1130 ... |
/// stream: | record 1 header + start of its block    | rest   | CRLF CRLF, record 2 …
///           location of a byte = (member offset in file, offset inside the member's output)
/// ```
final class WARCStream {
    /// Where a record starts: for gzip the member and the offset inside its output; for plain
    /// files the byte offset (and 0).
    struct Position: Hashable, Comparable {
        let member: UInt64
        let inside: UInt64

        static func < (lhs: Position, rhs: Position) -> Bool { (lhs.member, lhs.inside) < (rhs.member, rhs.inside) }
    }

    let file: InputFile
    let isGzip: Bool
    private let inflater: Inflater?
    private var input: [UInt8] = []
    private var inputHead = 0
    private var nextInput: UInt64 = 0
    private var buffer: [UInt8] = []
    private var head = 0
    private var memberEnded = true
    private(set) var memberStart: UInt64 = 0
    private(set) var memberOffset: UInt64 = 0
    /// Members begun so far.
    private(set) var membersStarted = 0
    static let pieceSize = 1 << 18

    /// Opens a stream; `gzip` says whether the file is gzip (sniffed by the caller).
    init(file: InputFile, gzip: Bool) throws {
        self.file = file
        isGzip = gzip
        do {
            inflater = gzip ? try Inflater(format: .gzip) : nil
        } catch {
            throw InteropError.badGzip(at: InputLocation(file: file.path, offset: 0), reason: error.reason)
        }
    }

    /// The position of the next unread byte.
    var position: Position {
        isGzip ? Position(member: memberStart, inside: memberOffset) : Position(member: memberOffset, inside: 0)
    }

    /// The location of the next unread byte, for messages.
    var location: InputLocation {
        isGzip
            ? InputLocation(file: file.path, offset: memberStart, decompressedOffset: memberOffset)
            : InputLocation(file: file.path, offset: memberOffset)
    }

    /// Unread bytes already decoded, possibly empty.
    var available: ArraySlice<UInt8> { buffer[head...] }

    /// Marks `count` bytes of ``available`` as read.
    func consume(_ count: Int) {
        head += count
        memberOffset += UInt64(count)
    }

    /// Makes sure at least one unread byte is decoded; returns false at the end of the file.
    ///
    /// - Throws: ``InteropError/truncatedGzip(at:)`` when the file ends inside a member,
    ///   ``InteropError/badGzip(at:reason:)`` for data zlib refuses or non-gzip bytes after a member.
    func fill() throws -> Bool {
        while head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
            guard let inflater else {
                let bytes = try file.read(at: nextInput, count: Self.pieceSize)
                guard !bytes.isEmpty else { return false }
                nextInput += UInt64(bytes.count)
                buffer = bytes
                return true
            }
            if memberEnded {
                guard try startMember(inflater) else { return false }
            }
            if inputHead == input.count {
                guard try readInput() else {
                    throw InteropError.truncatedGzip(at: InputLocation(file: file.path, offset: memberStart))
                }
            }
            do {
                inputHead += try inflater.inflate(input[inputHead...], into: &buffer, limit: Self.pieceSize)
            } catch {
                throw InteropError.badGzip(
                    at: InputLocation(file: file.path, offset: memberStart, decompressedOffset: memberOffset),
                    reason: error.reason)
            }
            memberEnded = inflater.finished
        }
        return true
    }

    /// Goes to `position`, found earlier by this stream or another over the same file.
    func seek(to target: Position) throws {
        if isGzip {
            if target.member == memberStart && target.inside >= memberOffset && membersStarted > 0 {
                try skip(target.inside - memberOffset)
                return
            }
            input = []
            inputHead = 0
            nextInput = target.member
            buffer = []
            head = 0
            memberEnded = true
            try skip(target.inside)
        } else {
            buffer = []
            head = 0
            nextInput = target.member
            memberOffset = target.member
        }
    }

    /// Skips `count` bytes; returns how many were there.
    @discardableResult
    func skip(_ count: UInt64) throws -> UInt64 {
        var left = count
        while left > 0, try fill() {
            let take = Int(min(left, UInt64(buffer.count - head)))
            consume(take)
            left -= UInt64(take)
        }
        return count - left
    }

    /// After bad gzip data: moves to the next gzip header after the current member, if any.
    func skipToNextMember() throws {
        var offset = memberStart + 1
        while offset < file.size {
            let bytes = try file.read(at: offset, count: Self.pieceSize + 2)
            if let found = (0..<max(0, bytes.count - 2)).first(where: {
                bytes[$0] == 0x1F && bytes[$0 + 1] == 0x8B && bytes[$0 + 2] == 8
            }) {
                try seek(to: Position(member: offset + UInt64(found), inside: 0))
                return
            }
            offset += UInt64(Self.pieceSize)
        }
        try seek(to: Position(member: file.size, inside: 0))
    }

    private func readInput() throws -> Bool {
        let bytes = try file.read(at: nextInput, count: Self.pieceSize)
        guard !bytes.isEmpty else { return false }
        nextInput += UInt64(bytes.count)
        input = Array(input[inputHead...]) + bytes
        inputHead = 0
        return true
    }

    /// Begins the member at the next unread input byte; false at the end of the file (zero
    /// padding after the last member counts as the end).
    private func startMember(_ inflater: Inflater) throws -> Bool {
        while input.count - inputHead < 2 {
            guard try readInput() else { break }
        }
        let start = nextInput - UInt64(input.count - inputHead)
        guard input.count > inputHead else { return false }
        guard input.count - inputHead >= 2, input[inputHead] == 0x1F, input[inputHead + 1] == 0x8B else {
            if try restIsZero(from: start) { return false }
            throw InteropError.badGzip(
                at: InputLocation(file: file.path, offset: start),
                reason: "bytes after the last gzip member are not gzip")
        }
        inflater.reset()
        memberStart = start
        memberOffset = 0
        memberEnded = false
        membersStarted += 1
        return true
    }

    private func restIsZero(from offset: UInt64) throws -> Bool {
        var offset = offset
        while offset < file.size {
            let bytes = try file.read(at: offset, count: Self.pieceSize)
            guard bytes.allSatisfy({ $0 == 0 }) else { return false }
            offset += UInt64(bytes.count)
        }
        return true
    }
}
