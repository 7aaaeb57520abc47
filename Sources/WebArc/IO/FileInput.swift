#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file front to back in fixed-size pieces, with errors that keep the path and errno.
enum FileInput {
    /// Calls `body` with successive pieces of at most `pieceSize` bytes (all but the last full).
    ///
    /// The file is opened as ``FileByteSource`` opens one: a FIFO can never block the caller, and
    /// only regular files are read.
    static func forEachPiece(
        of path: String, pieceSize: Int = ChunkEntry.maxRawLength, _ body: (ArraySlice<UInt8>) throws -> Void
    ) throws {
        let fd = try FileByteSource.openRegularFile(path).descriptor
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: pieceSize)
        var filled = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, pieceSize - filled) }
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw WebArcError.io(path: path, operation: .transferring("read"), errno: errno)
            }
            filled += got
            if got == 0 || filled == pieceSize {
                if filled > 0 { try body(buffer[0..<filled]) }
                if got == 0 { return }
                filled = 0
            }
        }
    }

    /// Reads a whole regular file into one buffer, sized for `expectedSize` bytes (a file that grew
    /// meanwhile is read to its end all the same). The buffer is not zeroed first: `read` fills it.
    static func readAll(_ path: String, expectedSize: Int = 0) throws -> [UInt8] {
        let fd = try FileByteSource.openRegularFile(path).descriptor
        defer { close(fd) }
        // One byte more than expected, so that the end of an unchanged file is seen in the buffer.
        let first = max(expectedSize, 0) + 1
        var result = try readUpTo(first, from: fd, path: path)
        var filledUp = result.count == first
        while filledUp {
            let want = max(result.count, 1 << 16)
            let more = try readUpTo(want, from: fd, path: path)
            result += more
            filledUp = more.count == want
        }
        return result
    }

    /// Reads `count` bytes, fewer only at the end of the file, into a new buffer.
    private static func readUpTo(_ count: Int, from fd: Int32, path: String) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            filled = 0
            while filled < count {
                let got = read(fd, buffer.baseAddress! + filled, count - filled)
                if got < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw WebArcError.io(path: path, operation: .transferring("read"), errno: errno)
                }
                if got == 0 { return }
                filled += got
            }
        }
    }
}
