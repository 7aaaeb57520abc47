import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An input opened for positioned reads through the core's `FileByteSource`, refused unless it is
/// a regular file (opening a FIFO would block the import), with reads that stop at its end.
final class InputFile {
    let path: String
    let size: UInt64
    private let source: FileByteSource

    /// Opens `path`.
    ///
    /// - Throws: ``InteropError/io(path:operation:errno:)`` when it is missing, unreadable or not a regular file.
    init(path: String) throws {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else { throw InteropError.io(path: path, operation: .opening("open"), errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw InteropError.io(path: path, operation: .opening("read (not a regular file)"), errno: EINVAL)
        }
        do {
            source = try FileByteSource(path: path)
        } catch let WebArcError.io(_, operation, code) {
            throw InteropError.io(path: path, operation: operation, errno: code)
        }
        size = source.size
    }

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        let available = Int(min(UInt64(max(count, 0)), size > offset ? size - offset : 0))
        do {
            return try source.read(at: offset, count: available)
        } catch let WebArcError.io(_, operation, code) {
            throw InteropError.io(path: path, operation: operation, errno: code)
        }
    }

    /// Reads the whole file into memory.
    func readAll() throws -> [UInt8] { try read(at: 0, count: Int(size)) }
}
