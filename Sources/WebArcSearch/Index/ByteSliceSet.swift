#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A set of distinct byte strings, numbered in the order they were added: their bytes in one
/// arena, found by an open-addressed table of their numbers and hashes.
struct ByteSliceSet {
    private var arena: [UInt8] = []
    /// Where each string starts in ``arena``; one more entry than strings, the arena's end.
    private var starts: [Int32] = [0]
    private var hashes: [UInt32] = []
    /// Slots of the hash table: a string's hash in the high half and its number plus one in the
    /// low, or 0 when free. A probe compares the hash without reading another array: on a table
    /// larger than the caches, each array read is a miss.
    private var slots = [UInt64](repeating: 0, count: 256)

    /// How many strings the set holds.
    var count: Int { hashes.count }

    /// Bytes of every string together.
    var byteCount: Int { arena.count }

    /// Forgets every string, keeping the arrays' room, unless the table grew past 65 536 slots:
    /// then it starts small again. A table over eight times the room its strings took is made
    /// smaller: clearing it is a pass over every slot, and after one large page every small page
    /// that follows would pay for clearing the large one's table.
    mutating func removeAll() {
        let keeps = slots.count <= 1 << 16
        let room = max(256, 4 * count)
        arena.removeAll(keepingCapacity: keeps)
        starts.removeAll(keepingCapacity: keeps)
        starts.append(0)
        hashes.removeAll(keepingCapacity: keeps)
        if keeps && slots.count <= 8 * room {
            slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        } else {
            slots = [UInt64](repeating: 0, count: keeps ? 1 << (Int.bitWidth - (room - 1).leadingZeroBitCount) : 256)
        }
    }

    /// The number of `bytes`, and whether they were added now.
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>) -> (number: Int, isNew: Bool) {
        insert(bytes, hash: Self.hash(bytes))
    }

    /// ``insert(_:)`` of `bytes` whose ``hash(_:)`` is `hash`.
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt32) -> (number: Int, isNew: Bool) {
        let (slot, found) = find(bytes, hash: hash)
        if let found { return (found, false) }
        let number = hashes.count
        arena.append(contentsOf: bytes)
        starts.append(Int32(arena.count))
        hashes.append(hash)
        slots[slot] = UInt64(hash) << 32 | UInt64(number + 1)
        if 2 * hashes.count > slots.count { grow() }
        return (number, true)
    }

    /// Reads the slots, and for a slot whose hash matches the first bytes of its string, that
    /// ``insert(_:hash:)`` of strings with these hashes will read, without waiting on each read in
    /// turn: in a table larger than the caches each is a miss, and independent loads overlap where
    /// a loop of inserts, whose every probe waits on the last, does not. Changes nothing.
    func warm(_ wanted: UnsafeBufferPointer<UInt32>) {
        var touched: UInt64 = 0
        slots.withUnsafeBufferPointer { slots in
            starts.withUnsafeBufferPointer { starts in
                arena.withUnsafeBufferPointer { arena in
                    let mask = slots.count - 1
                    for hash in wanted {
                        let slot = slots[Int(hash) & mask]
                        touched &+= slot
                        guard UInt32(truncatingIfNeeded: slot >> 32) == hash, slot != 0 else { continue }
                        let start = Int(starts[Int(UInt32(truncatingIfNeeded: slot)) - 1])
                        if start < arena.count { touched &+= UInt64(arena[start]) }
                    }
                }
            }
        }
        // Keeps the loads from being dropped as unused; never true for a table's own values.
        if touched == 1 { Self.sink = touched }
    }

    nonisolated(unsafe) private static var sink: UInt64 = 0

    /// The number of `bytes` when the set holds them, else nil and the free slot they would take.
    @inline(__always)
    private func find(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt32) -> (slot: Int, number: Int?) {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var slot = Int(hash) & mask
            while slots[slot] != 0 {
                if UInt32(truncatingIfNeeded: slots[slot] >> 32) == hash {
                    let number = Int(UInt32(truncatingIfNeeded: slots[slot])) - 1
                    if equals(number, bytes) { return (slot, number) }
                }
                slot = (slot + 1) & mask
            }
            return (slot, nil)
        }
    }

    /// The bytes of string `number`.
    func bytes(of number: Int) -> [UInt8] {
        Array(arena[Int(starts[number])..<Int(starts[number + 1])])
    }

    /// Calls `body` with the bytes of string `number`.
    func withBytes<Result>(of number: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try arena.withUnsafeBufferPointer {
            try body(UnsafeBufferPointer(rebasing: $0[Int(starts[number])..<Int(starts[number + 1])]))
        }
    }

    /// The strings held, read in place: valid only inside ``withUnsafeStrings(_:)``.
    struct UnsafeStrings {
        fileprivate let arena: UnsafeBufferPointer<UInt8>
        fileprivate let starts: UnsafeBufferPointer<Int32>
        fileprivate let hashes: UnsafeBufferPointer<UInt32>

        /// The bytes of string `number`.
        func bytes(of number: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: arena[Int(starts[number])..<Int(starts[number + 1])])
        }

        /// The ``ByteSliceSet/hash(_:)`` of string `number`.
        func hash(of number: Int) -> UInt32 { hashes[number] }
    }

    /// Calls `body` with the strings held, to read many without an access (and a retain) each.
    func withUnsafeStrings<Result>(_ body: (UnsafeStrings) throws -> Result) rethrows -> Result {
        try arena.withUnsafeBufferPointer { arena in
            try starts.withUnsafeBufferPointer { starts in
                try hashes.withUnsafeBufferPointer { try body(UnsafeStrings(arena: arena, starts: starts, hashes: $0)) }
            }
        }
    }

    /// The number of `bytes`, whose ``hash(_:)`` is `hash`, when the set holds them.
    func number(of bytes: UnsafeBufferPointer<UInt8>, hash: UInt32) -> Int? {
        find(bytes, hash: hash).number
    }

    /// The ``hash(_:)`` of string `number`.
    func hash(of number: Int) -> UInt32 { hashes[number] }

    /// The numbers of the strings in the order of their bytes.
    func sortedNumbers() -> [Int32] {
        // Sorted by their first eight bytes, big-endian, then (rarely) by all of them.
        var keys: [(prefix: UInt64, number: Int32)] = []
        keys.reserveCapacity(count)
        arena.withUnsafeBufferPointer { bytes in
            for number in 0..<count {
                let (start, end) = (Int(starts[number]), Int(starts[number + 1]))
                var prefix: UInt64 = 0
                for offset in 0..<8 { prefix = prefix << 8 | UInt64(start + offset < end ? bytes[start + offset] : 0) }
                keys.append((prefix, Int32(number)))
            }
        }
        keys.sort { left, right in
            left.prefix != right.prefix
                ? left.prefix < right.prefix : precedes(Int(left.number), Int(right.number))
        }
        return keys.map(\.number)
    }

    /// Whether string `left` sorts before string `right`, byte by byte.
    func precedes(_ left: Int, _ right: Int) -> Bool {
        let (leftStart, rightStart) = (Int(starts[left]), Int(starts[right]))
        let (leftCount, rightCount) = (Int(starts[left + 1]) - leftStart, Int(starts[right + 1]) - rightStart)
        return arena.withUnsafeBufferPointer { bytes in
            for offset in 0..<min(leftCount, rightCount) where bytes[leftStart + offset] != bytes[rightStart + offset] {
                return bytes[leftStart + offset] < bytes[rightStart + offset]
            }
            return leftCount < rightCount
        }
    }

    @inline(__always)
    private func equals(_ number: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = Int(starts[number])
        guard Int(starts[number + 1]) - start == bytes.count else { return false }
        return arena.withUnsafeBufferPointer { arena in
            guard let base = arena.baseAddress, let other = bytes.baseAddress else { return true }
            return Self.equalBytes(base + start, other, count: bytes.count)
        }
    }

    /// Whether `count` bytes at `left` and `right` are equal: terms are short, so up to 16 bytes
    /// are compared as two overlapping words in place, not through a call to `memcmp`.
    @inline(__always)
    private static func equalBytes(_ left: UnsafePointer<UInt8>, _ right: UnsafePointer<UInt8>, count: Int) -> Bool {
        let (left, right) = (UnsafeRawPointer(left), UnsafeRawPointer(right))
        switch count {
        case 8...16:
            return left.loadUnaligned(as: UInt64.self) == right.loadUnaligned(as: UInt64.self)
                && left.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == right.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        case 4..<8:
            return left.loadUnaligned(as: UInt32.self) == right.loadUnaligned(as: UInt32.self)
                && left.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == right.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        case 0..<4:
            let (left, right) = (left.assumingMemoryBound(to: UInt8.self), right.assumingMemoryBound(to: UInt8.self))
            for offset in 0..<count where left[offset] != right[offset] { return false }
            return true
        default:
            return memcmp(left, right, count) == 0
        }
    }

    private mutating func grow() {
        slots = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for number in hashes.indices {
            var slot = Int(hashes[number]) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt64(hashes[number]) << 32 | UInt64(number + 1)
        }
    }

    /// FNV-1a over the bytes from a per-process seed, folded to 32 bits.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash = seed
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return UInt32(truncatingIfNeeded: hash ^ hash >> 32)
    }

    /// FNV's offset basis mixed with Swift's per-process hash seed: the pages indexed are input
    /// from anywhere, and terms made to collide under a fixed hash would make every probe of the
    /// open-addressed tables walk them all. Fixed under `SWIFT_DETERMINISTIC_HASHING`, as Swift's is.
    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0xCBF2_9CE4_8422_2325 as UInt64)
        return 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: hasher.finalize())
    }()
}
