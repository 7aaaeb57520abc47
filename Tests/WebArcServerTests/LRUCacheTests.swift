import Testing

@testable import WebArcServer

@Suite struct LRUCacheTests {
    @Test func evictsLeastRecentlyUsedByCost() {
        var cache = LRUCache<String, Int>(capacity: 10)
        cache.insert(1, for: "a", cost: 4)
        cache.insert(2, for: "b", cost: 4)
        #expect(cache.value(for: "a") == 1)
        cache.insert(3, for: "c", cost: 4)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "c") == 3)
        #expect(cache.totalCost == 8)
    }

    @Test func replacesAndRefusesOversized() {
        var cache = LRUCache<Int, String>(capacity: 10)
        cache.insert("x", for: 1, cost: 5)
        cache.insert("y", for: 1, cost: 6)
        #expect(cache.value(for: 1) == "y")
        #expect(cache.totalCost == 6)
        cache.insert("huge", for: 2, cost: 11)
        #expect(cache.value(for: 2) == nil)
        #expect(cache.count == 1)
    }

    @Test func staysBoundedUnderChurn() {
        var cache = LRUCache<Int, Int>(capacity: 100)
        for key in 0..<10_000 {
            cache.insert(key, for: key, cost: 1 + key % 7)
            #expect(cache.totalCost <= 100)
        }
        #expect(cache.value(for: 9_999) == 9_999)
        #expect(cache.value(for: 0) == nil)
    }
}
