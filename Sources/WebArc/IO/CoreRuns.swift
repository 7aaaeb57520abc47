/// Work split for every core at once: consecutive runs of items of about equal bytes, one run a
/// core (a compact update's previous versions read, its new bodies' MD5s).
enum CoreRuns {
    /// Consecutive runs of `lengths`' indices, at most `runs`, of about equal total length; every
    /// index once, in order, no run empty.
    static func ofAboutEqualBytes(_ lengths: [Int], runs: Int) -> [Range<Int>] {
        let total = lengths.reduce(0, +)
        let count = max(1, min(runs, lengths.count))
        guard count > 1, total > 0 else { return lengths.isEmpty ? [] : [0..<lengths.count] }
        var found: [Range<Int>] = []
        var start = 0
        var sum = 0
        for (index, length) in lengths.enumerated() {
            sum += length
            if found.count < count - 1 && sum * count >= total * (found.count + 1) {
                found.append(start..<(index + 1))
                start = index + 1
            }
        }
        if start < lengths.count { found.append(start..<lengths.count) }
        return found
    }
}
