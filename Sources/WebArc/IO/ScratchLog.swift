#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes appended in order and read back by offset: what a writer keeps out of memory until it
/// finishes (body entries, sorted runs of records). The first ``bufferSize`` bytes stay in memory;
/// an unlinked ``ScratchFile`` holds the rest, made only when they do not fit, so a small archive
/// never touches the temporary folder.
final class ScratchLog {
    /// Bytes held in memory before they go to the file.
    static let bufferSize = 1 << 20

    private let prefix: String
    private var file: ScratchFile?
    private var buffer: [UInt8] = []
    /// Bytes in the file; the buffer holds the bytes from here on.
    private var flushed: UInt64 = 0

    /// A log whose file, if it needs one, is named after `prefix`.
    init(prefix: String) {
        self.prefix = prefix
        buffer.reserveCapacity(Self.bufferSize)
    }

    /// Bytes appended so far.
    var length: UInt64 { flushed + UInt64(buffer.count) }

    /// Appends `bytes` and returns the offset they start at.
    ///
    /// - Throws: `io` when the temporary file cannot be made or written.
    @discardableResult
    func append<C: Collection>(_ bytes: C) throws -> UInt64 where C.Element == UInt8 {
        let offset = length
        if buffer.count + bytes.count > Self.bufferSize && !buffer.isEmpty { try flush() }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
        return offset
    }

    /// Reads up to `count` bytes at `offset` (fewer at the end of the log).
    ///
    /// - Throws: `io` when the temporary file cannot be read.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        let count = Int(min(UInt64(count), length - min(offset, length)))
        if offset >= flushed {
            let start = Int(offset - flushed)
            return Array(buffer[start..<start + count])
        }
        if offset + UInt64(count) > flushed { try flush() }
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count, let file {
            let got = result.withUnsafeMutableBytes {
                pread(file.descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw WebArcError.io(
                    path: file.path, operation: .transferring("read back"), errno: got < 0 ? errno : EIO)
            }
            done += got
        }
        return result
    }

    /// Writes `bytes` over bytes appended earlier, from `offset` (which they must not pass).
    ///
    /// - Throws: `io` when the temporary file cannot be written.
    func overwrite(at offset: UInt64, with bytes: [UInt8]) throws {
        precondition(offset + UInt64(bytes.count) <= length, "an overwrite past the log's end")
        var done = 0
        if offset < flushed, let file {
            let inFile = Int(min(UInt64(bytes.count), flushed - offset))
            if let code = FileWriting.writeAll(Array(bytes[..<inFile]), to: file.descriptor, at: offset) {
                throw WebArcError.io(path: file.path, operation: .transferring("write"), errno: code)
            }
            done = inFile
        }
        guard done < bytes.count else { return }
        let start = Int(offset + UInt64(done) - flushed)
        buffer.replaceSubrange(start..<start + bytes.count - done, with: bytes[done...])
    }

    /// Ends the appending: when the log has a file, the buffered bytes go to it, so that later
    /// reads never write and may run on several threads at once (a log that fits its buffer is
    /// read from memory).
    ///
    /// - Throws: `io` when the temporary file cannot be written.
    func settle() throws {
        if file != nil { try flush() }
    }

    /// Moves the buffered bytes to the file.
    private func flush() throws {
        guard !buffer.isEmpty else { return }
        let file = try self.file ?? ScratchFile(prefix: prefix, unlinked: true)
        self.file = file
        if let code = FileWriting.writeAll(buffer, to: file.descriptor, at: flushed) {
            throw WebArcError.io(path: file.path, operation: .transferring("write"), errno: code)
        }
        flushed += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }
}
