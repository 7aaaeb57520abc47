import CZstd
import Foundation
import WebArc

/// Reads items of uncompressed and Zstandard clusters straight from the file: the entry's dirent
/// for its blob number, the cluster whole (one `pread`, one decompression), its blob offsets.
///
/// libzim 8 reads a compressed cluster through a stream that maps a fresh kilobyte or two of the
/// file for every read and unmaps it after, thousands of times per ZIM; with the import's workers
/// on every core, each unmapping interrupts the other cores to flush their TLBs, which cost more
/// than the decompression. This reader leaves libzim the rest (entries, metadata, `xz` clusters),
/// and every item it gives must have the size libzim gave for it, so that the two can never
/// disagree unnoticed. Thread-safe: the last few decoded clusters are shared.
///
/// ZIM format: dirent and cluster layout as libzim's `src/dirent.cpp` and `src/cluster.cpp` read them.
final class ZimClusterReader: @unchecked Sendable {
    private let path: String
    private let header: ZimHeader
    private let descriptor: Int32
    /// The positions clusters may end at: every cluster start, the pointer lists and the checksum, sorted.
    private let boundaries: [UInt64]
    /// The most bytes a cluster may decompress to here; a larger one is left to libzim.
    private let limit: UInt64
    private let lock = NSLock()
    private var cache: [(index: UInt32, cluster: Cluster)] = []
    private static let cached = 4
    /// Clusters up to 64 MiB (stored and decoded) are read here: libzim's writers make 2 MiB ones.
    static let defaultLimit: UInt64 = 64 << 20

    /// A cluster's decoded bytes and the blob offsets in them.
    private struct Cluster {
        var bytes: [UInt8]
        var offsets: [Int]
    }

    /// Opens the file of `zim` a second time for `pread`; clusters over `limit` bytes decoded are left to libzim.
    ///
    /// - Throws: ``ZimError/io(path:operation:errno:)``; ``ZimError/libzim(file:entry:message:)``
    ///   when the cluster pointer list cannot be read.
    convenience init(_ zim: ZimArchive, limit: UInt64) throws {
        try self.init(path: zim.path, header: zim.header, limit: limit)
    }

    /// Opens the file at `path`, whose checked header is `header`, for `pread`, without libzim.
    ///
    /// - Throws: as ``init(_:limit:)``.
    init(path: String, header: ZimHeader, limit: UInt64) throws {
        self.path = path
        self.header = header
        self.limit = limit
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ZimError.io(path: path, operation: .opening("open"), errno: errno) }
        let count = Int(header.clusterCount)
        let table = try Self.read(descriptor, at: header.clusterPointerPosition, count: count * 8, path: path)
        var ends = (0..<count).map { Self.uint64(table, $0 * 8) }
        // Not the title index: libzim 7 and later point the header's at a blob inside a cluster.
        ends += [header.pathPointerPosition, header.clusterPointerPosition, header.checksumPosition]
        boundaries = ends.sorted()
    }

    deinit { close(descriptor) }

    /// Checks the first blob offset of every uncompressed and Zstandard cluster, which libzim
    /// trusts to size its offset table: it must be a multiple of its width, and count at most one
    /// blob per entry of the file. (libzim reads the title index's cluster as it opens a file.)
    ///
    /// - Throws: ``ZimError/badHeader(file:reason:)`` naming the cluster.
    static func checkClusters(path: String, header: ZimHeader) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ZimError.io(path: path, operation: .opening("open"), errno: errno) }
        defer { close(descriptor) }
        guard let stream = ZSTD_createDStream() else {
            throw ZimError.badHeader(file: path, reason: "no memory for Zstandard")
        }
        defer { ZSTD_freeDStream(stream) }
        let table = try read(
            descriptor, at: header.clusterPointerPosition, count: Int(header.clusterCount) * 8, path: path)
        for index in 0..<Int(header.clusterCount) {
            let start = uint64(table, index * 8)
            guard start < header.checksumPosition else {
                throw ZimError.badHeader(file: path, reason: "cluster \(index) starts at \(start), past the clusters")
            }
            let stored = try read(
                descriptor, at: start, count: Int(min(4096, header.checksumPosition - start)), path: path)
            let width = stored[0] & 0x10 != 0 ? 8 : 4
            var first = [UInt8](repeating: 0, count: width)
            switch stored[0] & 0x0F {
            case 0, 1:
                guard stored.count > width else {
                    throw ZimError.badHeader(file: path, reason: "cluster \(index) ends in its offsets")
                }
                first = Array(stored[1...width])
            case 5:
                ZSTD_DCtx_reset(stream, ZSTD_reset_session_only)
                let produced = stored.withUnsafeBytes { source in
                    first.withUnsafeMutableBytes { target -> Int in
                        var input = ZSTD_inBuffer(src: source.baseAddress! + 1, size: source.count - 1, pos: 0)
                        var output = ZSTD_outBuffer(dst: target.baseAddress, size: width, pos: 0)
                        while output.pos < width && input.pos < input.size {
                            guard ZSTD_isError(ZSTD_decompressStream(stream, &output, &input)) == 0 else { return -1 }
                        }
                        return output.pos
                    }
                }
                // A frame that does not give its first offset from its first 4 KiB is libzim's to refuse.
                guard produced == width else { continue }
            default:
                continue
            }
            let offset = width == 8 ? uint64(first, 0) : UInt64(uint32(first, 0))
            guard offset >= UInt64(width), offset % UInt64(width) == 0,
                offset / UInt64(width) - 1 <= UInt64(header.entryCount)
            else {
                throw ZimError.badHeader(
                    file: path,
                    reason:
                        "cluster \(index)'s first blob offset \(offset) counts more blobs than the \(header.entryCount) entries"
                )
            }
        }
    }

    /// Item `entry`'s bytes (its size known), or nil when this reader leaves it to libzim (an `xz`
    /// cluster, or one that decodes to more than the limit).
    ///
    /// - Throws: ``ZimError/libzim(file:entry:message:)`` for a dirent or cluster that is not
    ///   what it must be, or a blob whose size is not libzim's.
    func read(_ entry: ZimArchive.Entry) throws -> [UInt8]? {
        let pointer = try Self.read(
            descriptor, at: header.pathPointerPosition + UInt64(entry.index) * 8, count: 8, path: path)
        let dirent = try Self.read(descriptor, at: Self.uint64(pointer, 0), count: 16, path: path)
        let cluster = Self.uint32(dirent, 8)
        let blob = Int(Self.uint32(dirent, 12))
        guard Self.uint16(dirent, 0) < 0xFFFD, cluster == entry.cluster else {
            throw bad(entry.path, "its dirent is not libzim's")
        }
        guard let decoded = try decodedCluster(cluster, entry: entry.path) else { return nil }
        guard blob + 1 < decoded.offsets.count else {
            throw bad(entry.path, "blob \(blob) of cluster \(cluster), which holds \(decoded.offsets.count - 1)")
        }
        let range = decoded.offsets[blob]..<decoded.offsets[blob + 1]
        guard UInt64(range.count) == entry.size else {
            throw bad(
                entry.path, "blob \(blob) of cluster \(cluster) holds \(range.count) bytes, libzim says \(entry.size)")
        }
        return Array(decoded.bytes[range])
    }

    /// The blobs of cluster `index`, decoded as ``read(_:)`` decodes it, or nil when this reader
    /// leaves the cluster to libzim.
    ///
    /// - Throws: ``ZimError/libzim(file:entry:message:)`` for a cluster that is not what it must be.
    func blobs(ofCluster index: UInt32) throws -> [ArraySlice<UInt8>]? {
        guard let decoded = try decodedCluster(index, entry: nil) else { return nil }
        return zip(decoded.offsets, decoded.offsets.dropFirst()).map { decoded.bytes[$0..<$1] }
    }

    private func decodedCluster(_ index: UInt32, entry: String?) throws -> Cluster? {
        if let hit = lock.withLock({ cache.first { $0.index == index }?.cluster }) { return hit }
        guard index < header.clusterCount else { throw bad(entry, "cluster \(index) of \(header.clusterCount)") }
        let table = try Self.read(
            descriptor, at: header.clusterPointerPosition + UInt64(index) * 8, count: 8, path: path)
        let start = Self.uint64(table, 0)
        guard let end = boundaries.first(where: { $0 > start }), end - start <= limit else { return nil }
        let stored = try Self.read(descriptor, at: start, count: Int(end - start), path: path)
        let info = stored[0]
        let width = info & 0x10 != 0 ? 8 : 4
        let bytes: [UInt8]
        switch info & 0x0F {
        case 0, 1: bytes = Array(stored.dropFirst())
        case 5:
            guard let decoded = try decompress(stored.dropFirst(), entry: entry, cluster: index) else { return nil }
            bytes = decoded
        default: return nil
        }
        let offsets =
            try Self.offsets(bytes, width: width)
            ?? { throw bad(entry, "cluster \(index)'s blob offsets do not fit it") }()
        let cluster = Cluster(bytes: bytes, offsets: offsets)
        lock.withLock {
            cache.insert((index, cluster), at: 0)
            if cache.count > Self.cached { cache.removeLast() }
        }
        return cluster
    }

    /// One Zstandard frame decoded whole, or nil when it decodes to more than the limit.
    private func decompress(_ frame: ArraySlice<UInt8>, entry: String?, cluster: UInt32) throws -> [UInt8]? {
        guard let stream = ZSTD_createDStream() else { throw bad(entry, "no memory for Zstandard") }
        defer { ZSTD_freeDStream(stream) }
        var output: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 1 << 20)
        return try frame.withUnsafeBytes { source -> [UInt8]? in
            var input = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
            while true {
                let left = try piece.withUnsafeMutableBytes { target -> Int in
                    var out = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
                    let result = ZSTD_decompressStream(stream, &out, &input)
                    guard ZSTD_isError(result) == 0 else {
                        throw bad(entry, "cluster \(cluster): \(String(cString: ZSTD_getErrorName(result)))")
                    }
                    output += target.prefix(out.pos)
                    return result == 0 ? 0 : (input.pos < input.size || out.pos == out.size ? 1 : -1)
                }
                if UInt64(output.count) > limit { return nil }
                if left == 0 { return output }
                if left < 0 { throw bad(entry, "cluster \(cluster) ends inside its Zstandard frame") }
            }
        }
    }

    /// The blob offsets that open a cluster's bytes: the first is where the blobs start (so how
    /// many offsets there are), each at least the one before, the last inside the bytes.
    private static func offsets(_ bytes: [UInt8], width: Int) -> [Int]? {
        guard bytes.count >= width else { return nil }
        let first = width == 8 ? uint64(bytes, 0) : UInt64(uint32(bytes, 0))
        guard first >= UInt64(width), first % UInt64(width) == 0, first <= UInt64(bytes.count) else { return nil }
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(first) / width)
        for position in stride(from: 0, to: Int(first), by: width) {
            let offset = width == 8 ? uint64(bytes, position) : UInt64(uint32(bytes, position))
            guard offset >= UInt64(offsets.last ?? 0), offset <= UInt64(bytes.count) else { return nil }
            offsets.append(Int(offset))
        }
        return offsets
    }

    private func bad(_ entry: String?, _ reason: String) -> ZimError {
        ZimError.libzim(file: path, entry: entry, message: reason)
    }

    /// `count` bytes at `offset`, all of them, through the package's one `pread` loop; a file
    /// that ends first is a damaged ZIM.
    private static func read(_ descriptor: Int32, at offset: UInt64, count: Int, path: String) throws -> [UInt8] {
        guard offset <= UInt64(Int64.max) else {
            throw ZimError.libzim(file: path, entry: nil, message: "a position past the file: \(offset)")
        }
        do {
            return try FileByteSource.read(descriptor, at: offset, count: count, path: path)
        } catch WebArcError.truncated {
            throw ZimError.libzim(
                file: path, entry: nil, message: "\(count) bytes at \(offset) run past the end of the file")
        } catch WebArcError.io(_, _, let code) {
            throw ZimError.io(path: path, operation: .transferring("read"), errno: code)
        }
    }

    private static func uint16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }
    private static func uint64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }
}
