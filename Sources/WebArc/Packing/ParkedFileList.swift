import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``ScannedFiles`` list kept in two unlinked scratch files, its entries (fixed size, found by
/// position) and its paths' bytes, and read back a block of files at a time: a pack reads its list
/// in order several times over (the anchor plan, the workers, the writer), each pass a few blocks
/// apart, so a few cached blocks serve every read and the list takes no memory that grows with it.
final class ParkedFileList: @unchecked Sendable {
    /// Files in the list.
    let count: Int
    // Settled logs: read from any thread, never written again.
    private let entries: ScratchLog
    private let paths: ScratchLog
    private let cache = Mutex(BlockCache())

    /// Files read back together.
    static let blockFiles = 1024
    /// Blocks kept: more than the passes a pack runs at once need.
    static let cachedBlocks = 16

    private static var entrySize: Int { MemoryLayout<ScannedFiles.Entry>.stride }

    /// A block of files read back: their entries and the bytes of their paths, which lie together.
    private struct Block {
        var number: Int
        var entries: [ScannedFiles.Entry]
        var paths: [UInt8]
        var pathBase: UInt64
        var lastUse: Int
    }

    private struct BlockCache {
        var blocks: [Block] = []
        var uses = 0
        var readFailure: WebArcError?
    }

    private init(count: Int, entries: ScratchLog, paths: ScratchLog) {
        self.count = count
        self.entries = entries
        self.paths = paths
    }

    /// The first error met reading the files back, if any.
    var readFailure: WebArcError? { cache.withLock { $0.readFailure } }

    /// Calls `body` with file `position`'s entry and its path's bytes. A block that cannot be read
    /// back gives an empty entry and path and sets ``readFailure``.
    func withEntry<T>(at position: Int, _ body: (ScannedFiles.Entry, ArraySlice<UInt8>) -> T) -> T {
        precondition(position >= 0 && position < count, "a file position past the list")
        let number = position / Self.blockFiles
        return cache.withLock { cache in
            cache.uses += 1
            let slot: Int
            if let found = cache.blocks.firstIndex(where: { $0.number == number }) {
                slot = found
            } else {
                do {
                    let block = try readBlock(number, use: cache.uses)
                    if cache.blocks.count < Self.cachedBlocks {
                        cache.blocks.append(block)
                        slot = cache.blocks.count - 1
                    } else {
                        slot = cache.blocks.indices.min { cache.blocks[$0].lastUse < cache.blocks[$1].lastUse }!
                        cache.blocks[slot] = block
                    }
                } catch {
                    cache.readFailure = cache.readFailure ?? (error as? WebArcError ?? Self.shortRead)
                    let empty = ScannedFiles.Entry(
                        pathStart: 0, size: 0, modified: 0, pathLength: 0, folder: ScannedFiles.linked)
                    return body(empty, [])
                }
            }
            cache.blocks[slot].lastUse = cache.uses
            let block = cache.blocks[slot]
            let entry = block.entries[position - number * Self.blockFiles]
            let start = Int(entry.pathStart - block.pathBase)
            return body(entry, block.paths[start..<start + Int(entry.pathLength)])
        }
    }

    /// A scratch file that gave back fewer bytes than were written to it.
    private static var shortRead: WebArcError {
        .io(path: "scanned files", operation: .transferring("read back"), errno: EIO)
    }

    private func readBlock(_ number: Int, use: Int) throws -> Block {
        let first = number * Self.blockFiles
        let files = min(Self.blockFiles, count - first)
        let bytes = try entries.read(at: UInt64(first * Self.entrySize), count: files * Self.entrySize)
        guard bytes.count == files * Self.entrySize else { throw Self.shortRead }
        let blockEntries = bytes.withUnsafeBytes { raw in
            (0..<files).map { raw.loadUnaligned(fromByteOffset: $0 * Self.entrySize, as: ScannedFiles.Entry.self) }
        }
        // Paths were written in the entries' order, so a block's paths are one range.
        let pathBase = blockEntries[0].pathStart
        let pathEnd = blockEntries[files - 1].pathStart + UInt64(blockEntries[files - 1].pathLength)
        let pathBytes = try paths.read(at: pathBase, count: Int(pathEnd - pathBase))
        guard pathBytes.count == Int(pathEnd - pathBase) else { throw Self.shortRead }
        return Block(number: number, entries: blockEntries, paths: pathBytes, pathBase: pathBase, lastUse: use)
    }

    /// Writes a list's files in order, then makes the ``ParkedFileList`` that reads them back.
    final class Writer {
        private let entries = ScratchLog(prefix: "webarc-scan-entries")
        private let paths = ScratchLog(prefix: "webarc-scan-paths")
        private var count = 0

        /// Bytes of paths written so far: where the next file's path starts.
        var pathBytes: UInt64 { paths.length }

        /// Adds the next file.
        ///
        /// - Throws: `io` when a scratch file cannot be made or written.
        func append(_ entry: ScannedFiles.Entry, path: [UInt8]) throws {
            try withUnsafeBytes(of: entry) { _ = try entries.append($0) }
            try paths.append(path)
            count += 1
        }

        /// The list written, ready to be read from any thread.
        ///
        /// - Throws: `io` when a scratch file cannot be written.
        func finish() throws -> ParkedFileList {
            try entries.settle()
            try paths.settle()
            return ParkedFileList(count: count, entries: entries, paths: paths)
        }
    }
}
