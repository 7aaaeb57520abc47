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

    /// Reads a whole regular file.
    static func readAll(_ path: String) throws -> [UInt8] {
        var result: [UInt8] = []
        try forEachPiece(of: path, pieceSize: 1 << 20) { result.append(contentsOf: $0) }
        return result
    }
}
