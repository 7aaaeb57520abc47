/// A least-recently-used map bounded by the total cost of its values.
///
/// Not thread-safe by itself: the server keeps each cache behind a `Mutex`. Lookups and inserts
/// are O(1); an insert evicts from the cold end until the total cost fits again. A value whose
/// cost alone exceeds the capacity is not stored.
///
/// ```
///   head (most recent) ⇄ node ⇄ node ⇄ … ⇄ tail (least recent, evicted first)
/// ```
struct LRUCache<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value?
        var cost: Int
        var previous: Int
        var next: Int
    }

    /// The largest total cost the cache holds.
    let capacity: Int
    /// The total cost of the values held.
    private(set) var totalCost = 0
    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    private var slots: [Key: Int] = [:]
    private var head = -1
    private var tail = -1

    /// Makes an empty cache holding values up to `capacity` in total cost.
    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// Number of values held.
    var count: Int { slots.count }

    /// The value for `key`, marking it most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Stores `value` under `key` with `cost`, evicting least recently used values to make room.
    mutating func insert(_ value: Value, for key: Key, cost: Int) {
        if let slot = slots[key] { remove(slot) }
        guard cost <= capacity else { return }
        while totalCost + cost > capacity, tail >= 0 { remove(tail) }
        let node = Node(key: key, value: value, cost: cost, previous: -1, next: head)
        let slot: Int
        if let free = freeSlots.popLast() {
            nodes[free] = node
            slot = free
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        slots[key] = slot
        totalCost += cost
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        nodes[slot].previous = -1
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
    }

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        slots[nodes[slot].key] = nil
        totalCost -= nodes[slot].cost
        nodes[slot].value = nil
        freeSlots.append(slot)
    }
}
