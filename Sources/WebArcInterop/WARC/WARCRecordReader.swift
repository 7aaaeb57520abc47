/// Reads WARC records one after another: the header, then the block in pieces, then the CRLF CRLF
/// that must follow it, with errors that name the file and the record's offset.
final class WARCRecordReader {
    /// A record header with where the record starts.
    struct Start {
        var header: WARCRecordHeader
        var location: InputLocation
        var position: WARCStream.Position
    }

    let stream: WARCStream
    var path: String { stream.file.path }
    private var blockRemaining: UInt64 = 0
    private var current: Start?
    private var pendingLine: (line: [UInt8], location: InputLocation, position: WARCStream.Position)?
    static let maxHeaderBytes = 1 << 20

    init(stream: WARCStream) {
        self.stream = stream
    }

    /// Bytes of the current block not read yet.
    var remaining: UInt64 { blockRemaining }

    /// Reads the next record header, skipping blank lines before it; nil at the end of the file.
    ///
    /// - Throws: ``InteropError/badWARCHeader(at:reason:)`` and the stream's gzip errors.
    func next() throws -> Start? {
        var versionLine: [UInt8]
        var location: InputLocation
        var position: WARCStream.Position
        if let pending = pendingLine {
            (versionLine, location, position) = pending
            pendingLine = nil
        } else {
            repeat {
                // Fill first: at a member boundary the next byte's position is in the next member.
                guard try stream.fill() else { return nil }
                location = stream.location
                position = stream.position
                guard let line = try readLine(limit: 4096, location: location) else { return nil }
                versionLine = line
            } while versionLine.isEmpty
        }
        let first = HTTPHead.text(versionLine.prefix(80)).trimmingHTTPWhitespace()
        guard WARCRecordHeader.versions.contains(first) else {
            throw InteropError.badWARCHeader(
                at: location, reason: "first line is \"\(first)\", not WARC/1.0 or WARC/1.1")
        }
        var fieldLines: [[UInt8]] = []
        var total = versionLine.count
        while true {
            guard let line = try readLine(limit: Self.maxHeaderBytes, location: location) else {
                throw InteropError.badWARCHeader(at: location, reason: "the file ends inside the record header")
            }
            if line.isEmpty { break }
            total += line.count
            guard total <= Self.maxHeaderBytes else {
                throw InteropError.badWARCHeader(at: location, reason: "the record header is longer than 1 MiB")
            }
            fieldLines.append(line)
        }
        do {
            let header = try WARCRecordHeader(versionLine: versionLine, fieldLines: fieldLines)
            blockRemaining = header.contentLength
            let start = Start(header: header, location: location, position: position)
            current = start
            return start
        } catch {
            throw InteropError.badWARCHeader(at: location, reason: error.reason)
        }
    }

    /// Reads up to `limit` bytes of the current block; empty once the block is read.
    ///
    /// - Throws: ``InteropError/truncatedRecord(at:declared:available:)`` when the file ends first.
    func readBlock(limit: Int = WARCStream.pieceSize) throws -> ArraySlice<UInt8> {
        guard blockRemaining > 0 else { return [] }
        guard try stream.fill() else { throw truncated() }
        let piece = stream.available.prefix(Int(min(UInt64(limit), blockRemaining)))
        stream.consume(piece.count)
        blockRemaining -= UInt64(piece.count)
        return piece
    }

    /// Reads one line of the current block (without its line end); nil when the block is read.
    func readBlockLine(limit: Int) throws -> [UInt8]? {
        guard blockRemaining > 0 else { return nil }
        var line: [UInt8] = []
        while blockRemaining > 0 {
            guard try stream.fill() else { throw truncated() }
            let slice = stream.available.prefix(Int(min(UInt64(Int.max), blockRemaining)))
            if let end = slice.firstIndex(of: 0x0A) {
                let taken = end - slice.startIndex + 1
                line += slice[slice.startIndex..<end]
                stream.consume(taken)
                blockRemaining -= UInt64(taken)
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            line += slice
            stream.consume(slice.count)
            blockRemaining -= UInt64(slice.count)
            guard line.count <= limit else {
                throw InteropError.badHTTPMessage(
                    at: current!.location, reason: "a header line is longer than \(limit) bytes")
            }
        }
        return line
    }

    /// Skips the rest of the block and checks the CRLF CRLF after it.
    ///
    /// - Throws: ``InteropError/contentLengthMismatch(at:declared:found:)`` when other bytes follow.
    func finishRecord() throws {
        while try !readBlock().isEmpty {}
        guard let current else { return }
        let expected: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        var matched = 0
        while matched < 4, try stream.fill() {
            guard stream.available.first == expected[matched] else { break }
            stream.consume(1)
            matched += 1
        }
        // A trailer cut by the end of the file is accepted: the block itself is complete.
        guard matched < 4, try stream.fill() else { return }
        let found = expected.prefix(matched) + stream.available.prefix(4 - matched)
        let shown = found.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
        throw InteropError.contentLengthMismatch(
            at: current.location, declared: current.header.contentLength, found: shown)
    }

    /// After a damaged record: reads on to the next line that starts with `WARC/`, which
    /// ``next()`` then takes as the next record's first line.
    func resynchronize() throws {
        blockRemaining = 0
        while try stream.fill() {
            let location = stream.location
            let position = stream.position
            guard let line = try readLine(limit: 1 << 20, location: location, truncate: true) else { return }
            if line.starts(with: Array("WARC/".utf8)),
                WARCRecordHeader.versions.contains(HTTPHead.text(line).trimmingHTTPWhitespace())
            {
                pendingLine = (line, location, position)
                return
            }
        }
    }

    private func truncated() -> InteropError {
        let start = current!
        let declared = start.header.contentLength
        return .truncatedRecord(at: start.location, declared: declared, available: declared - blockRemaining)
    }

    /// Reads a line outside any block; nil at the end of the file with nothing read.
    private func readLine(limit: Int, location: InputLocation, truncate: Bool = false) throws -> [UInt8]? {
        var line: [UInt8] = []
        var sawAny = false
        while try stream.fill() {
            sawAny = true
            let slice = stream.available
            if let end = slice.firstIndex(of: 0x0A) {
                if !truncate || line.count < limit { line += slice[slice.startIndex..<end] }
                stream.consume(end - slice.startIndex + 1)
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            if !truncate || line.count < limit { line += slice }
            stream.consume(slice.count)
            if line.count > limit && !truncate {
                throw InteropError.badWARCHeader(at: location, reason: "a header line is longer than \(limit) bytes")
            }
        }
        return sawAny ? line : nil
    }
}
