import Foundation

/// The bodies a writer has stored: their entries (spec §6.3), encoded one after another in a
/// ``ScratchLog``, and in memory only where each starts, by MD5.
///
/// A writer looks a body up when one with the same MD5 arrives (a likely duplicate) and when it
/// finishes (the body tree in reference order, and each record leaf's copies), so entries are read
/// back rarely while bodies are added; keeping only an offset per body in memory keeps the writer's
/// memory to a few dozen bytes per body however many chunks each has.
///
/// One thread (the writer's) adds and looks up; ``contains(_:)`` may be asked from any thread
/// meanwhile (``PackPipeline``'s workers, which code no body the writer already holds).
final class BodyTable: @unchecked Sendable {
    /// A stored body: its MD5 and where its entry starts in the log. The log only grows, so of two
    /// bodies with one MD5 the earlier variant starts first.
    private struct Stored {
        var digest: BodyDigest
        var offset: UInt64
    }

    /// Every stored body: in the order added until ``seal()``, then in reference order (MD5, then
    /// offset, which is variant order), sorted where it lies.
    private var stored: [Stored] = []
    /// Until ``seal()``: which bodies have which MD5, as an open-addressing table probed linearly
    /// from a hash of the MD5, each slot an index into ``stored`` plus one (0: free). Variants of
    /// one MD5 lie along its probe sequence in the order added. 4 bytes a slot, at most
    /// ``maxLoad`` of them used: a dictionary by MD5 took about 48 bytes a body, and its sorted
    /// copy at ``seal()`` 32 more beside it.
    private var slots: [UInt32] = []
    private static let maxLoad = 0.7
    private var isSealed = false
    /// ``stored`` while ``park()`` holds it on disk.
    private var parked: ParkedArray<Stored>?
    /// Held while ``stored`` or ``slots`` change, and by ``contains(_:)``: the writer's own
    /// lookups, on the thread that changes them, need not take it.
    private let lock = NSLock()
    private let log = ScratchLog(prefix: "webarc-bodies")
    /// The entry stored or found last: a response names its body right after the body is added.
    private var recent: BodyEntry?

    /// Distinct bodies stored.
    private(set) var count = 0

    /// Bytes a read takes at once: most entries (one or two chunks) fit, longer ones take a second read.
    private static let readSize = 512

    /// The stored bodies with this MD5, in variant order.
    func variants(of digest: BodyDigest) throws -> [BodyEntry] {
        try offsets(of: digest).map { try entry(at: $0) }
    }

    /// The stored entry `reference` names, or nil.
    func entry(_ reference: BodyReference) throws -> BodyEntry? {
        if let recent, recent.reference == reference { return recent }
        guard let offset = offset(of: reference) else { return nil }
        let found = try entry(at: offset)
        recent = found
        return found
    }

    /// Stores a new body under the next free variant of its MD5 and returns its entry.
    ///
    /// - Throws: `io` when the scratch file cannot be written.
    func add(
        digest: BodyDigest, length: UInt64, sha256: SHA256Hash, chunks: [ChunkEntry], sliceStart: UInt32? = nil
    ) throws -> BodyEntry {
        precondition(!isSealed, "a body added to a finished writer")
        let variant = UInt32(offsets(of: digest).count)
        let reference = BodyReference(digest: digest, variant: variant)
        let entry =
            sliceStart.map {
                BodyEntry(reference: reference, length: length, sha256: sha256, group: chunks[0], sliceStart: $0)
            } ?? BodyEntry(reference: reference, length: length, sha256: sha256, chunks: chunks)
        var writer = ByteWriter(capacity: 4 + entry.encodedSize)
        writer.write(UInt32(entry.encodedSize))
        entry.serialize(into: &writer)
        let offset = try log.append(writer.bytes)
        precondition(stored.count < Int(UInt32.max), "more bodies than a body table numbers")
        lock.withLock {
            stored.append(Stored(digest: digest, offset: offset))
            if Double(stored.count) > Double(slots.count) * Self.maxLoad {
                grow(holding: stored.count)
            } else {
                place(stored.count - 1)
            }
        }
        count += 1
        recent = entry
        return entry
    }

    /// Replaces the entry of a body stored earlier by one of the same encoded size (a slice whose
    /// group chunk is now written, spec §6.3).
    ///
    /// - Throws: `io` when the scratch file cannot be written.
    func replace(_ entry: BodyEntry) throws {
        guard let offset = offset(of: entry.reference) else {
            preconditionFailure("a body replaced before it was stored")
        }
        var writer = ByteWriter(capacity: 4 + entry.encodedSize)
        writer.write(UInt32(entry.encodedSize))
        entry.serialize(into: &writer)
        try log.overwrite(at: offset, with: writer.bytes)
        if recent?.reference == entry.reference { recent = entry }
    }

    /// Whether a body with this MD5 is stored; any thread may ask.
    func contains(_ digest: BodyDigest) -> Bool {
        lock.withLock {
            if isSealed {
                let index = lowerBound(digest)
                return index < stored.count && stored[index].digest == digest
            }
            guard !slots.isEmpty else { return false }
            let mask = slots.count - 1
            var slot = Self.home(of: digest, mask: mask)
            while slots[slot] != 0 {
                if stored[Int(slots[slot]) - 1].digest == digest { return true }
                slot = (slot + 1) & mask
            }
            return false
        }
    }

    /// Where the entry `reference` names starts in the log, or nil.
    private func offset(of reference: BodyReference) -> UInt64? {
        if isSealed {
            let index = sortedIndex(of: reference)
            return index.map { stored[$0].offset }
        }
        let offsets = offsets(of: reference.digest)
        return Int(reference.variant) < offsets.count ? offsets[Int(reference.variant)] : nil
    }

    /// Where the entries with this MD5 start in the log, in variant order.
    private func offsets(of digest: BodyDigest) -> [UInt64] {
        var found: [UInt64] = []
        if isSealed {
            var index = lowerBound(digest)
            while index < stored.count && stored[index].digest == digest {
                found.append(stored[index].offset)
                index += 1
            }
            return found
        }
        guard !slots.isEmpty else { return [] }
        let mask = slots.count - 1
        var slot = Self.home(of: digest, mask: mask)
        while slots[slot] != 0 {
            let body = stored[Int(slots[slot]) - 1]
            if body.digest == digest { found.append(body.offset) }
            slot = (slot + 1) & mask
        }
        return found
    }

    /// The first slot to probe for `digest`: MD5s are spread evenly, but both halves go through
    /// MurmurHash3's 64-bit finalizer so that made-up digests (a few bytes set, as in tests)
    /// spread too.
    private static func home(of digest: BodyDigest, mask: Int) -> Int {
        var mixed = digest.high ^ (digest.low &* 0x9E37_79B9_7F4A_7C15)
        mixed ^= mixed >> 33
        mixed &*= 0xFF51_AFD7_ED55_8CCD
        mixed ^= mixed >> 33
        mixed &*= 0xC4CE_B9FE_1A85_EC53
        mixed ^= mixed >> 33
        return Int(truncatingIfNeeded: mixed) & mask
    }

    /// Puts body `index` of ``stored`` in the first free slot of its probe sequence: after every
    /// earlier body of its MD5, as it is placed after them.
    private func place(_ index: Int) {
        let mask = slots.count - 1
        var slot = Self.home(of: stored[index].digest, mask: mask)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt32(index + 1)
    }

    /// Makes room for `count` bodies in all: the list's capacity and slots enough that adding
    /// them does not grow either. Pages are not touched until bodies fill them.
    func reserve(_ count: Int) {
        guard count > 0, !isSealed else { return }
        lock.withLock {
            stored.reserveCapacity(count)
            grow(holding: count)
        }
    }

    /// Doubles the slots (1 024 at first) until `count` bodies fit under ``maxLoad``, and places
    /// every body again, in the order added; does nothing when they fit already.
    private func grow(holding count: Int) {
        var capacity = max(1024, slots.count)
        while Double(count) > Double(capacity) * Self.maxLoad { capacity *= 2 }
        guard capacity > slots.count else { return }
        slots = []
        slots = [UInt32](repeating: 0, count: capacity)
        for index in stored.indices { place(index) }
    }

    /// Ends adding: the bodies are sorted by reference where they lie (the body tree's order) and
    /// the slots are let go. Lookups still work, by binary search.
    func seal() {
        guard !isSealed else { return }
        lock.withLock {
            slots = []
            stored.sort { $0.digest != $1.digest ? $0.digest < $1.digest : $0.offset < $1.offset }
            isSealed = true
        }
    }

    /// Moves the sealed table (24 bytes a body) to a scratch file until ``unpark()``, for a
    /// stage that looks no body up: the search index writing its pages. A lookup meanwhile traps.
    ///
    /// - Throws: `io` when the scratch file cannot be made or written.
    func park() throws {
        precondition(isSealed, "a body table parked before it was sealed")
        if parked == nil { parked = try .moving(&stored, prefix: "webarc-body-table") }
    }

    /// Reads the table back after ``park()``; does nothing when it is in memory.
    ///
    /// - Throws: `io` when the scratch file cannot be read.
    func unpark() throws {
        guard let parked else { return }
        (stored, self.parked) = (try parked.restore(), nil)
    }

    /// Every entry in reference order (``seal()`` first), read back one at a time.
    func forEachSorted(_ visit: (BodyEntry) throws -> Void) throws {
        precondition(isSealed, "body entries listed before the table was sealed")
        for body in stored { try visit(try entry(at: body.offset)) }
    }

    /// Where `reference` comes in reference order (``seal()`` first), or nil when not stored: a
    /// number below ``count`` that a caller can mark bodies by, a bit each.
    func sortedIndex(of reference: BodyReference) -> Int? {
        precondition(isSealed, "a body's place asked for before the table was sealed")
        let index = lowerBound(reference.digest) + Int(reference.variant)
        return index < stored.count && stored[index].digest == reference.digest ? index : nil
    }

    /// Decodes the entry stored at `offset` of the log.
    private func entry(at offset: UInt64) throws -> BodyEntry {
        var bytes = try log.read(at: offset, count: Self.readSize)
        let length = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        if bytes.count < 4 + length { bytes = try log.read(at: offset, count: 4 + length) }
        var reader = ByteReader(bytes, region: .object(page: 0), range: 4..<4 + length)
        return try BodyEntry(parsing: &reader, page: 0)
    }

    /// The index of the first sorted body whose MD5 is not before `digest`.
    private func lowerBound(_ digest: BodyDigest) -> Int {
        var low = 0
        var high = stored.count
        while low < high {
            let middle = (low + high) / 2
            if stored[middle].digest < digest { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
