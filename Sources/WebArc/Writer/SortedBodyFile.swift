import Foundation

/// A sealed ``BodyTable``'s list: every stored body's MD5 and where its entry starts in the log,
/// in reference order (MD5, then offset, which is variant order). It is sorted in spilled runs
/// and kept in an unlinked scratch file, read a block of ``blockCount`` bodies at a time. Memory
/// holds the first MD5 of each block (16 bytes per 256 bodies) and the last few blocks read, so
/// a writer's finish (search index, record tree) holds nothing that grows with its bodies. A list
/// of up to ``heldCount`` bodies stays in memory, so a small archive touches no temporary folder.
final class SortedBodyFile: @unchecked Sendable {
    /// One body: its MD5 and its entry's offset in the log.
    struct Element: SpilledSortElement, BitwiseCopyable {
        var digest: BodyDigest
        var offset: UInt64

        static func precedes(_ lhs: Element, _ rhs: Element) -> Bool {
            lhs.digest != rhs.digest ? lhs.digest < rhs.digest : lhs.offset < rhs.offset
        }

        func encode(into writer: inout ByteWriter) {
            writer.write(digest.high)
            writer.write(digest.low)
            writer.write(offset)
        }

        static func decode(_ reader: inout ByteReader) throws -> Element {
            Element(
                digest: BodyDigest(high: try reader.readUInt64(), low: try reader.readUInt64()),
                offset: try reader.readUInt64())
        }

        var heldSize: Int { MemoryLayout<Element>.stride }
    }

    /// Bodies a block holds: 6 KiB read at once.
    static let blockCount = 256
    /// Blocks kept after they are read: a lookup's neighbours and the next lookup's often share one.
    private static let cachedBlocks = 32
    /// Bodies held in memory instead of a file (1.5 MiB).
    static let heldCount = 1 << 16

    /// Bodies listed.
    let count: Int
    /// Every body when they are at most ``heldCount`` (no file), else none.
    private let held: [Element]
    private let file: ScratchFile?
    /// The first MD5 of each block.
    private let firsts: [BodyDigest]
    private let lock = NSLock()
    /// Blocks read last, by number, and their numbers in the order read (the oldest goes first).
    private var cache: [Int: [Element]] = [:]
    private var cacheOrder: [Int] = []

    /// Sorts the bodies `feed` gives (it calls its argument once for each): in memory when they are
    /// at most `heldCount`, else into a new scratch file.
    ///
    /// - Throws: `io` when a run or the file cannot be written or read back; what `feed` throws.
    init(heldCount: Int = SortedBodyFile.heldCount, sorting feed: ((Element) throws -> Void) throws -> Void) throws {
        let sort = SpilledSort<Element>(prefix: "webarc-body-sort")
        var total = 0
        try feed {
            try sort.append($0)
            total += 1
        }
        var sorted = try sort.sorted()
        count = total
        guard total > heldCount else {
            var all: [Element] = []
            all.reserveCapacity(total)
            while let element = try sorted.next() { all.append(element) }
            (held, file, firsts) = (all, nil, [])
            return
        }
        let scratch = try ScratchFile(prefix: "webarc-body-table", unlinked: true)
        var block: [Element] = []
        block.reserveCapacity(Self.blockCount)
        var firsts: [BodyDigest] = []
        var written = 0
        func flush() throws {
            guard !block.isEmpty else { return }
            let at = UInt64(written * MemoryLayout<Element>.stride)
            if let code = block.withUnsafeBytes({ FileWriting.writeAll($0, to: scratch.descriptor, at: at) }) {
                throw WebArcError.io(path: scratch.path, operation: .transferring("write"), errno: code)
            }
            firsts.append(block[0].digest)
            written += block.count
            block.removeAll(keepingCapacity: true)
        }
        while let element = try sorted.next() {
            block.append(element)
            if block.count == Self.blockCount { try flush() }
        }
        try flush()
        precondition(written == total, "the sorted bodies are not the ones given")
        (held, file, self.firsts) = ([], scratch, firsts)
    }

    /// Body `index` in reference order.
    ///
    /// - Throws: `io` or `truncated` when the scratch file cannot be read.
    func element(at index: Int) throws -> Element {
        precondition(index >= 0 && index < count, "a body past the sorted list")
        if file == nil { return held[index] }
        return try block(index / Self.blockCount)[index % Self.blockCount]
    }

    /// The index of the first body whose MD5 is not before `digest` (``count`` when none).
    ///
    /// - Throws: `io` or `truncated` when the scratch file cannot be read.
    func lowerBound(_ digest: BodyDigest) throws -> Int {
        if file == nil { return Self.lowerBound(digest, in: held) }
        // Blocks whose first MD5 is before `digest`: the bound lies in the last of them, or at the
        // start of the block after it.
        var low = 0
        var high = firsts.count
        while low < high {
            let middle = (low + high) / 2
            if firsts[middle] < digest { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return 0 }
        let number = low - 1
        return number * Self.blockCount + Self.lowerBound(digest, in: try block(number))
    }

    /// The index of the first of `elements` whose MD5 is not before `digest`.
    private static func lowerBound(_ digest: BodyDigest, in elements: [Element]) -> Int {
        var low = 0
        var high = elements.count
        while low < high {
            let middle = (low + high) / 2
            if elements[middle].digest < digest { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Every body in reference order, read block by block past the cache.
    ///
    /// - Throws: `io` or `truncated` when the scratch file cannot be read; what `visit` throws.
    func forEach(_ visit: (Element) throws -> Void) throws {
        if file == nil { return try held.forEach(visit) }
        for number in firsts.indices {
            for element in try read(number) { try visit(element) }
        }
    }

    /// Block `number`, from the cache or the file.
    private func block(_ number: Int) throws -> [Element] {
        if let found = lock.withLock({ cache[number] }) { return found }
        let elements = try read(number)
        lock.withLock {
            guard cache[number] == nil else { return }
            if cache.count >= Self.cachedBlocks { cache[cacheOrder.removeFirst()] = nil }
            cache[number] = elements
            cacheOrder.append(number)
        }
        return elements
    }

    /// Reads block `number` from the file.
    private func read(_ number: Int) throws -> [Element] {
        guard let file else { preconditionFailure("a block read from a list held in memory") }
        let first = number * Self.blockCount
        let elements = min(Self.blockCount, count - first)
        let stride = MemoryLayout<Element>.stride
        return try [Element](unsafeUninitializedCapacity: elements) { buffer, initialized in
            try FileByteSource.read(
                file.descriptor, at: UInt64(first * stride), into: UnsafeMutableRawBufferPointer(buffer),
                path: file.path)
            initialized = elements
        }
    }
}
