/// A bounded map that forgets its least recently used entries, by count and by total cost.
///
/// Eviction drops the oldest quarter at once (sorted by last use), so an insert costs O(1)
/// amortized and a lookup O(1). Not thread-safe: the reader keeps it behind a `Mutex`.
struct LRUCache<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, cost: Int, stamp: UInt64)] = [:]
    private var clock: UInt64 = 0
    private(set) var totalCost = 0
    let maxCount: Int
    let maxCost: Int

    init(maxCount: Int, maxCost: Int = .max) {
        self.maxCount = max(1, maxCount)
        self.maxCost = maxCost
    }

    var count: Int { entries.count }

    /// The value for `key`, marked as just used.
    mutating func value(for key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key]?.stamp = clock
        return entry.value
    }

    /// True when `key` has a value (without marking it used).
    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// Stores `value`; a value costing more than the whole budget is not kept.
    mutating func insert(_ value: Value, for key: Key, cost: Int = 1) {
        guard cost <= maxCost else { return }
        clock += 1
        if let old = entries.updateValue((value, cost, clock), forKey: key) { totalCost -= old.cost }
        totalCost += cost
        if entries.count > maxCount || totalCost > maxCost { evict() }
    }

    private mutating func evict() {
        // Sorts stamps and keys only: sorting the entries would copy (retain and release) every
        // value, which was most of a cursor walk's cost of remembering its body entries.
        var byAge: [(stamp: UInt64, key: Key)] = []
        byAge.reserveCapacity(entries.count)
        for (key, entry) in entries { byAge.append((entry.stamp, key)) }
        byAge.sort { $0.stamp < $1.stamp }
        var index = 0
        let keep = maxCount - maxCount / 4
        while index < byAge.count && (entries.count > keep || totalCost > maxCost - maxCost / 4) {
            if let entry = entries.removeValue(forKey: byAge[index].key) { totalCost -= entry.cost }
            index += 1
        }
    }
}
