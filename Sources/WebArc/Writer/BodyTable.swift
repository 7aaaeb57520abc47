import Foundation

/// The bodies a writer has stored: their entries (spec §6.3), encoded one after another in a
/// ``ScratchLog``, and in memory only where each starts, found by a hash of its MD5.
///
/// A writer looks a body up when one with the same MD5 arrives (a likely duplicate) and when it
/// finishes (the body tree in reference order, and each record leaf's copies), so entries are read
/// back rarely while bodies are added; keeping only a slot of 8 bytes per body in memory while
/// they are added, and once sealed a sorted list on disk (``SortedBodyFile``), keeps the writer's
/// memory flat however many chunks each body has.
///
/// One thread (the writer's) adds and looks up; ``mayContain(_:)`` may be asked from any thread
/// meanwhile (``PackPipeline``'s workers, which code no body the writer already holds).
final class BodyTable: @unchecked Sendable {
    /// Until ``seal()``: which bodies have which MD5, as an open-addressing table probed linearly
    /// from a hash of the MD5. A slot is 0 (free) or 24 bits of the MD5's hash (a fingerprint) over
    /// 40 bits of where the entry starts in the log (in 4-byte units, plus one). 8 bytes a slot, at
    /// most ``maxLoad`` of them used: the table before took 24 bytes a body in a list beside 4-byte
    /// slots, about 32 MB at 1 M bodies against 12 MB now. A fingerprint that matches is confirmed
    /// by the MD5 in the log entry, except by ``mayContain(_:)``, which may answer true wrongly.
    private var slots: [UInt64] = []
    private static let maxLoad = 0.7
    private static let offsetBits: UInt64 = 40
    private static let offsetMask: UInt64 = (1 << offsetBits) - 1
    /// The fingerprint's bits in use: all 24, or fewer in a test that makes them collide.
    private let fingerprintMask: UInt64
    private var isSealed = false
    /// After ``seal()``: every body in reference order (MD5, then offset, which is variant order:
    /// the log only grows, so of two bodies with one MD5 the earlier variant starts first).
    private var sorted: SortedBodyFile?
    /// Held while ``slots`` change, and by ``mayContain(_:)``: the writer's own lookups, on the
    /// thread that changes them, need not take it.
    private let lock = NSLock()
    private let log = ScratchLog(prefix: "webarc-bodies")
    /// The entry stored or found last: a response names its body right after the body is added.
    private var recent: BodyEntry?

    /// Distinct bodies stored.
    private(set) var count = 0

    /// Bytes a read takes at once: most entries (one or two chunks) fit, longer ones take a second read.
    private static let readSize = 512

    /// Bodies the sealed list holds in memory before it takes a scratch file.
    private let sortedHeldCount: Int

    /// An empty table whose fingerprints keep `fingerprintBits` bits (at most 24; fewer only to
    /// test that matching fingerprints are confirmed by the MD5) and whose sealed list is held in
    /// memory up to `sortedHeldCount` bodies.
    init(fingerprintBits: UInt64 = 24, sortedHeldCount: Int = SortedBodyFile.heldCount) {
        fingerprintMask = (1 << min(fingerprintBits, 64 - Self.offsetBits)) - 1
        self.sortedHeldCount = sortedHeldCount
    }

    /// The stored bodies with this MD5, in variant order.
    func variants(of digest: BodyDigest) throws -> [BodyEntry] {
        try offsets(of: digest).map { try entry(at: $0) }
    }

    /// The stored entry `reference` names, or nil.
    func entry(_ reference: BodyReference) throws -> BodyEntry? {
        if let recent, recent.reference == reference { return recent }
        guard let offset = try offset(of: reference) else { return nil }
        let found = try entry(at: offset)
        recent = found
        return found
    }

    /// Stores a new body under the next free variant of its MD5 and returns its entry.
    ///
    /// - Throws: `io` when the scratch file cannot be written or read back.
    func add(
        digest: BodyDigest, length: UInt64, sha256: SHA256Hash, chunks: [ChunkEntry], sliceStart: UInt32? = nil
    ) throws -> BodyEntry {
        precondition(!isSealed, "a body added to a finished writer")
        let variant = UInt32(try offsets(of: digest).count)
        let reference = BodyReference(digest: digest, variant: variant)
        let entry =
            sliceStart.map {
                BodyEntry(reference: reference, length: length, sha256: sha256, group: chunks[0], sliceStart: $0)
            } ?? BodyEntry(reference: reference, length: length, sha256: sha256, chunks: chunks)
        var writer = ByteWriter(capacity: 4 + entry.encodedSize)
        writer.write(UInt32(entry.encodedSize))
        entry.serialize(into: &writer)
        // Entries are whole 4-byte words (spec §6.3), so each starts at a multiple of 4.
        precondition(writer.bytes.count % 4 == 0, "a body entry of \(writer.bytes.count) bytes")
        // Grown first: growing places again every entry the log holds.
        try grow(holding: count + 1)
        let offset = try log.append(writer.bytes)
        precondition(offset >> 2 < Self.offsetMask, "a body log over 4 TiB")
        lock.withLock { Self.place(digest, at: offset, in: &slots, mask: fingerprintMask) }
        count += 1
        recent = entry
        return entry
    }

    /// Replaces the entry of a body stored earlier by one of the same encoded size (a slice whose
    /// group chunk is now written, spec §6.3).
    ///
    /// - Throws: `io` when the scratch file cannot be written.
    func replace(_ entry: BodyEntry) throws {
        guard let offset = try offset(of: entry.reference) else {
            preconditionFailure("a body replaced before it was stored")
        }
        var writer = ByteWriter(capacity: 4 + entry.encodedSize)
        writer.write(UInt32(entry.encodedSize))
        entry.serialize(into: &writer)
        try log.overwrite(at: offset, with: writer.bytes)
        if recent?.reference == entry.reference { recent = entry }
    }

    /// Whether a body with this MD5 may be stored; any thread may ask. True for every stored MD5,
    /// and wrongly about once in 16 million asks for one not stored (its fingerprint matches one
    /// that is): a caller takes it as a likely duplicate, which the writer settles by ``variants(of:)``.
    func mayContain(_ digest: BodyDigest) -> Bool {
        lock.withLock {
            if let sorted {
                // A list that cannot be read back says maybe: the writer then looks for itself.
                guard let index = try? sorted.lowerBound(digest) else { return true }
                guard index < sorted.count else { return false }
                return (try? sorted.element(at: index).digest == digest) != false
            }
            guard !slots.isEmpty else { return false }
            let (home, fingerprint) = Self.hash(digest, capacity: slots.count, mask: fingerprintMask)
            var slot = home
            while slots[slot] != 0 {
                if slots[slot] >> Self.offsetBits == fingerprint { return true }
                slot = slot + 1 == slots.count ? 0 : slot + 1
            }
            return false
        }
    }

    /// Where the entry `reference` names starts in the log, or nil.
    private func offset(of reference: BodyReference) throws -> UInt64? {
        if let sorted {
            return try sortedIndex(of: reference).map { try sorted.element(at: $0).offset }
        }
        let offsets = try offsets(of: reference.digest)
        return Int(reference.variant) < offsets.count ? offsets[Int(reference.variant)] : nil
    }

    /// Where the entries with this MD5 start in the log, in variant order (the order added, which
    /// is the log's).
    private func offsets(of digest: BodyDigest) throws -> [UInt64] {
        var found: [UInt64] = []
        if let sorted {
            var index = try sorted.lowerBound(digest)
            while index < sorted.count {
                let element = try sorted.element(at: index)
                guard element.digest == digest else { break }
                found.append(element.offset)
                index += 1
            }
            return found
        }
        guard !slots.isEmpty else { return [] }
        let (home, fingerprint) = Self.hash(digest, capacity: slots.count, mask: fingerprintMask)
        var slot = home
        while slots[slot] != 0 {
            if slots[slot] >> Self.offsetBits == fingerprint {
                let offset = ((slots[slot] & Self.offsetMask) - 1) << 2
                if try self.digest(at: offset) == digest { found.append(offset) }
            }
            slot = slot + 1 == slots.count ? 0 : slot + 1
        }
        // A wrapped probe sequence can meet a later variant first.
        return found.count > 1 ? found.sorted() : found
    }

    /// The MD5 of the entry stored at `offset` of the log: its first 16 bytes.
    private func digest(at offset: UInt64) throws -> BodyDigest {
        let bytes = try log.read(at: offset + 4, count: 16)
        guard bytes.count == 16 else {
            throw WebArcError.io(path: "body table", operation: .transferring("read back"), errno: EIO)
        }
        return BodyDigest(sixteen: bytes)
    }

    /// The first slot to probe for `digest` in a table of `capacity` slots, and its fingerprint.
    /// MD5s are spread evenly, but both halves go through MurmurHash3's 64-bit finalizer so that
    /// made-up digests (a few bytes set, as in tests) spread too; the slot is the hash's high bits
    /// scaled to the capacity, the fingerprint its low bits (`mask`).
    private static func hash(_ digest: BodyDigest, capacity: Int, mask: UInt64) -> (home: Int, fingerprint: UInt64) {
        var mixed = digest.high ^ (digest.low &* 0x9E37_79B9_7F4A_7C15)
        mixed ^= mixed >> 33
        mixed &*= 0xFF51_AFD7_ED55_8CCD
        mixed ^= mixed >> 33
        mixed &*= 0xC4CE_B9FE_1A85_EC53
        mixed ^= mixed >> 33
        let home = Int(truncatingIfNeeded: mixed.multipliedFullWidth(by: UInt64(capacity)).high)
        return (home, mixed & mask)
    }

    /// Puts the body with MD5 `digest` whose entry starts at `offset` in the first free slot of
    /// its probe sequence.
    private static func place(_ digest: BodyDigest, at offset: UInt64, in slots: inout [UInt64], mask: UInt64) {
        let (home, fingerprint) = hash(digest, capacity: slots.count, mask: mask)
        var slot = home
        while slots[slot] != 0 { slot = slot + 1 == slots.count ? 0 : slot + 1 }
        slots[slot] = fingerprint << offsetBits | (offset >> 2 + 1)
    }

    /// Makes room for `count` bodies in all: slots enough that adding them does not grow the table.
    ///
    /// - Throws: `io` when the entries already stored cannot be read back to be placed again.
    func reserve(_ count: Int) throws {
        guard count > 0, !isSealed else { return }
        try grow(holding: count)
    }

    /// Makes the slots enough for `count` bodies under ``maxLoad`` (1 024 at least, and at least
    /// twice as many as before), placing every stored body again from the log in the order added;
    /// does nothing when they fit already. The old slots answer ``mayContain(_:)`` meanwhile.
    private func grow(holding count: Int) throws {
        guard Double(count) > Double(slots.count) * Self.maxLoad else { return }
        let capacity = max(1024, 2 * slots.count, Int((Double(count) / Self.maxLoad).rounded(.up)) + 1)
        var grown = [UInt64](repeating: 0, count: capacity)
        try forEachLogged { digest, offset in Self.place(digest, at: offset, in: &grown, mask: fingerprintMask) }
        lock.withLock { slots = grown }
    }

    /// Calls `visit` with the MD5 and offset of every entry in the log, in the order added.
    ///
    /// - Throws: `io` when the scratch file cannot be read.
    private func forEachLogged(_ visit: (BodyDigest, UInt64) throws -> Void) throws {
        let end = log.length
        var start: UInt64 = 0
        while start < end {
            let block = try log.read(at: start, count: 1 << 20)
            var position = 0
            // Whole entries of the block; one cut at its end is read again from its start.
            while block.count - position >= 20 {
                let length =
                    Int(block[position]) | Int(block[position + 1]) << 8 | Int(block[position + 2]) << 16
                    | Int(block[position + 3]) << 24
                guard block.count - position >= 4 + length || position == 0 else { break }
                try visit(BodyDigest(sixteen: Array(block[position + 4..<position + 20])), start + UInt64(position))
                position += 4 + length
            }
            guard position > 0 else {
                throw WebArcError.io(path: "body table", operation: .transferring("read back"), errno: EIO)
            }
            start += UInt64(position)
        }
    }

    /// Ends adding: every body is listed in reference order (the body tree's) from the log into a
    /// sorted scratch file, and the slots are let go. Lookups still work, by binary search.
    ///
    /// - Throws: `io` when a scratch file cannot be written or read.
    func seal() throws {
        guard !isSealed else { return }
        lock.withLock { slots = [] }
        let list = try SortedBodyFile(heldCount: sortedHeldCount) { add in
            try forEachLogged { digest, offset in try add(SortedBodyFile.Element(digest: digest, offset: offset)) }
        }
        lock.withLock {
            sorted = list
            isSealed = true
        }
    }

    /// Every entry in reference order (``seal()`` first), read back one at a time.
    func forEachSorted(_ visit: (BodyEntry) throws -> Void) throws {
        guard let sorted else { preconditionFailure("body entries listed before the table was sealed") }
        try sorted.forEach { try visit(try entry(at: $0.offset)) }
    }

    /// Where `reference` comes in reference order (``seal()`` first), or nil when not stored: a
    /// number below ``count`` that a caller can mark bodies by, a bit each.
    ///
    /// - Throws: `io` when the sorted list cannot be read back.
    func sortedIndex(of reference: BodyReference) throws -> Int? {
        guard let sorted else { preconditionFailure("a body's place asked for before the table was sealed") }
        let index = try sorted.lowerBound(reference.digest) + Int(reference.variant)
        guard index < sorted.count else { return nil }
        return try sorted.element(at: index).digest == reference.digest ? index : nil
    }

    /// Decodes the entry stored at `offset` of the log.
    private func entry(at offset: UInt64) throws -> BodyEntry {
        var bytes = try log.read(at: offset, count: Self.readSize)
        let length = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        if bytes.count < 4 + length { bytes = try log.read(at: offset, count: 4 + length) }
        var reader = ByteReader(bytes, region: .object(page: 0), range: 4..<4 + length)
        return try BodyEntry(parsing: &reader, page: 0)
    }
}
