import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to an archive's bytes by offset and length: a file, a mapping, or ranged HTTP
/// (`WebArcRemote`).
public protocol ByteSource: Sendable {
    /// Total number of bytes.
    var size: UInt64 { get }
    /// Reads exactly `count` bytes at `offset`, or throws when the source ends before.
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
    /// Tells the source that these extents are about to be read, in this order (a body's chunks).
    ///
    /// A remote source fetches neighbouring extents in one request instead of one per chunk;
    /// local sources ignore it. Never required for correctness: every extent is still read with
    /// ``read(at:count:)`` and verified.
    func willRead(_ extents: [Range<UInt64>])
    /// ``willRead(_:)`` for extents that lie apart (the references an update's bodies make into a
    /// base): a remote source keeps up to `ahead` of its requests in flight ahead of the reads
    /// instead of one, so that scattered extents cost a few round trips rather than one each.
    func willRead(_ extents: [Range<UInt64>], ahead: Int)
    /// Bytes a reader reads from the end of the file at open (the trailer, and the metadata and
    /// record root when they fit: spec §14).
    ///
    /// A file or a mapping reads 64 KiB (one read costs the same either way); a remote source asks
    /// for less, since every byte crosses the network. The reader reads the record root and the
    /// metadata page in one more read when they are not inside.
    var openingTailLength: Int { get }
    /// True when the bytes arrive front to back while they are read (a download in progress): a
    /// reader free to choose its order then reads in file order, since a read ahead of the
    /// stream waits for it. False for a file or memory, where any order costs the same.
    var arrivesInFileOrder: Bool { get }
    /// How many independent reads (a search's hits) a reader keeps in flight at once: a local
    /// read costs CPU, so one per core; a remote one mostly waits a round trip, so more.
    var concurrentReads: Int { get }
}

extension ByteSource {
    public func willRead(_ extents: [Range<UInt64>]) {}
    public func willRead(_ extents: [Range<UInt64>], ahead: Int) { willRead(extents) }
    public var openingTailLength: Int { 65_536 }
    public var arrivesInFileOrder: Bool { false }
    public var concurrentReads: Int { ProcessInfo.processInfo.activeProcessorCount }
}

/// A file read with positioned reads (`pread`); safe to share between threads.
public final class FileByteSource: ByteSource {
    private let descriptor: Int32
    /// The path the file was opened at.
    public let path: String
    public let size: UInt64
    /// The file opened, as it was when opened: compare it with ``FileIdentity/init(path:)`` to
    /// learn whether `path` still names these bytes.
    package let identity: FileIdentity?

    /// Opens `path` for reading.
    ///
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` when it cannot be opened, is a directory, or
    ///   is not a regular file (a FIFO, socket or device is refused without blocking).
    public init(path: String) throws {
        let (fd, length) = try Self.openRegularFile(path)
        descriptor = fd
        self.path = path
        size = length
        identity = FileIdentity(descriptor: fd)
    }

    /// Whether `path` names another file than the one opened, or the same file rewritten since
    /// (another size or modification time); false while the path cannot be looked up (a
    /// replacement in progress), so that a reload waits for the new file to be in place.
    public var changedAtPath: Bool {
        guard let identity, let now = FileIdentity(path: path) else { return false }
        return now != identity
    }

    deinit { close(descriptor) }

    /// Opens a regular file without ever blocking (`O_NONBLOCK`, so a FIFO cannot stall the open)
    /// and returns its descriptor and size; anything else is refused with the path named.
    static func openRegularFile(_ path: String) throws -> (descriptor: Int32, size: UInt64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw WebArcError.io(path: path, operation: .opening("open"), errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw WebArcError.io(path: path, operation: .opening("stat"), errno: code)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return (fd, UInt64(info.st_size))
        case S_IFDIR:
            close(fd)
            throw WebArcError.io(path: path, operation: .opening("read"), errno: EISDIR)
        default:
            close(fd)
            throw WebArcError.io(path: path, operation: .opening("read (not a regular file)"), errno: EINVAL)
        }
    }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset <= size, UInt64(count) <= size - offset else {
            throw WebArcError.truncated(
                section: "file", offset: offset, needed: UInt64(count), available: size > offset ? size - offset : 0)
        }
        return try Self.read(descriptor, at: offset, count: count, path: path)
    }

    /// Reads exactly `count` bytes at `offset` of an open descriptor with `pread`, retrying short
    /// reads and `EINTR`.
    ///
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` naming `path`; `truncated` when the file
    ///   ends first.
    package static func read(_ descriptor: Int32, at offset: UInt64, count: Int, path: String) throws -> [UInt8] {
        // Not zero-filled first: pread writes every byte, and on a failure none of it is kept.
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try read(descriptor, at: offset, into: UnsafeMutableRawBufferPointer(buffer), path: path)
            initialized = count
        }
    }

    /// Reads exactly `buffer.count` bytes at `offset` into `buffer` (a caller's reused buffer):
    /// as ``read(at:count:)``.
    package func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws {
        guard !buffer.isEmpty else { return }
        guard offset <= size, UInt64(buffer.count) <= size - offset else {
            throw WebArcError.truncated(
                section: "file", offset: offset, needed: UInt64(buffer.count),
                available: size > offset ? size - offset : 0)
        }
        try Self.read(descriptor, at: offset, into: buffer, path: path)
    }

    /// Fills `buffer` from `descriptor` at `offset`, through short reads and interrupts.
    ///
    /// - Throws: `io` naming `path` when a read fails; `truncated` when the file ends first.
    static func read(
        _ descriptor: Int32, at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws {
        let count = buffer.count
        var done = 0
        while done < count {
            let result = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            if result < 0 {
                if errno == EINTR { continue }
                throw WebArcError.io(path: path, operation: .transferring("read"), errno: errno)
            }
            if result == 0 {
                throw WebArcError.truncated(
                    section: "file", offset: offset + UInt64(done), needed: UInt64(count - done), available: 0)
            }
            done += result
        }
    }
}

/// Bytes held in memory or mapped from a file (`Data(contentsOf:options: .alwaysMapped)`).
public struct DataByteSource: ByteSource {
    private let data: Data
    public var size: UInt64 { UInt64(data.count) }

    /// Wraps `data`; its indices need not start at zero.
    public init(_ data: Data) { self.data = data }

    /// Maps the file at `path` into memory; pages load on first touch.
    ///
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` as ``FileByteSource/init(path:)`` does.
    public init(mapping path: String) throws {
        close(try FileByteSource.openRegularFile(path).descriptor)
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw WebArcError.io(path: path, operation: .opening("map"), errno: Int32((error as NSError).code))
        }
    }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset <= size, UInt64(count) <= size - offset else {
            throw WebArcError.truncated(
                section: "file", offset: offset, needed: UInt64(count), available: size > offset ? size - offset : 0)
        }
        let start = data.startIndex + Int(offset)
        return [UInt8](data[start..<start + count])
    }
}
