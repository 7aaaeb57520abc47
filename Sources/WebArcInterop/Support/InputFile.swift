import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An input opened for positioned reads through the core's `FileByteSource`, refused unless it is
/// a regular file (opening a FIFO would block the import), with reads that stop at its end; or a
/// window on one (a WARC stored in a WACZ), read in place as if it were a file of its own.
final class InputFile: Sendable {
    /// The path as given; for a window, the ZIP's path and the member's name (`crawl.wacz!/archive/data.warc.gz`).
    let path: String
    let size: UInt64
    private let source: FileByteSource
    /// Where the window starts in the file (0 for a whole file).
    private let base: UInt64

    /// Opens `path`.
    ///
    /// - Throws: ``InteropError/io(path:operation:errno:)`` when it is missing, unreadable or not a regular file.
    init(path: String) throws {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw InteropError.io(path: path, operation: .opening("open"), errno: errno)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw InteropError.io(path: path, operation: .opening("read (not a regular file)"), errno: EINVAL)
        }
        do {
            source = try FileByteSource(path: path)
        } catch let WebArcError.io(_, operation, code) {
            throw InteropError.io(path: path, operation: operation, errno: code)
        }
        size = source.size
        base = 0
    }

    /// The `size` bytes of `file` at `offset`, read as a file named `path`; the caller has checked
    /// that they lie inside `file`.
    init(window file: InputFile, offset: UInt64, size: UInt64, path: String) {
        precondition(offset <= file.size && size <= file.size - offset, "a window past the end of \(file.path)")
        self.path = path
        self.size = size
        source = file.source
        base = file.base + offset
    }

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        let available = Int(min(UInt64(max(count, 0)), size > offset ? size - offset : 0))
        do {
            return try source.read(at: base + offset, count: available)
        } catch let WebArcError.io(_, operation, code) {
            throw InteropError.io(path: path, operation: operation, errno: code)
        }
    }

    /// Reads the whole file into memory.
    func readAll() throws -> [UInt8] { try read(at: 0, count: Int(size)) }
}

extension InputFile {
    /// Decompresses the whole file (gzip: one member, or several in a row) into memory, reading
    /// it a megabyte at a time and stopping as soon as the output passes `limit` bytes.
    ///
    /// - Throws: ``InteropError/decompressedTooLarge(file:limit:)``; `badGzip` (damaged data, or
    ///   bytes after a member that start no other); `truncatedGzip`; `io`.
    func readAllGzip(limit: Int) throws -> [UInt8] {
        let inflater: Inflater
        do { inflater = try Inflater(format: .gzip) } catch {
            throw InteropError.badGzip(at: InputLocation(file: path), reason: error.reason)
        }
        var output: [UInt8] = []
        var offset: UInt64 = 0
        var pending: ArraySlice<UInt8> = []
        var member: UInt64 = 0
        while true {
            if pending.isEmpty {
                if offset >= size {
                    guard inflater.finished else {
                        throw InteropError.truncatedGzip(at: InputLocation(file: path, offset: member))
                    }
                    return output
                }
                pending = try read(at: offset, count: 1 << 20)[...]
                offset += UInt64(pending.count)
                continue
            }
            if inflater.finished {
                member = offset - UInt64(pending.count)
                inflater.reset()
            }
            let before = output.count
            let consumed: Int
            do {
                consumed = try inflater.inflate(pending, into: &output, limit: limit + 1 - output.count)
            } catch {
                throw InteropError.badGzip(at: InputLocation(file: path, offset: member), reason: error.reason)
            }
            guard output.count <= limit else {
                throw InteropError.decompressedTooLarge(file: path, limit: UInt64(limit))
            }
            guard consumed > 0 || output.count > before || inflater.finished else {
                throw InteropError.badGzip(
                    at: InputLocation(file: path, offset: member), reason: "zlib made no progress")
            }
            pending = pending.dropFirst(consumed)
        }
    }
}
