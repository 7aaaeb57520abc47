import Crypto

extension MD5Lanes {
    /// What one step of all sixteen lanes costs, in MD5 blocks hashed one stream at a time
    /// (`Insecure.MD5`): measured 0.13 µs a step against 0.10 µs a block (Xeon with AVX-512F, one
    /// core). Two busy lanes already beat one stream.
    static let stepCost = 1.3

    /// The MD5 of each of `messages`, those that pay hashed side by side in lanes, the others by
    /// `Insecure.MD5`: the same digests either way.
    ///
    /// A lane step hashes one block of every lane, busy or idle, so lanes pay when they are about
    /// as long as each other: the shortest messages of each sixteen share the lanes, as many as
    /// make `stepCost × (the longest of them)` plus the rest hashed alone the least work, and the
    /// longer ones (a 1 MiB page among 4 KiB ones) are hashed alone.
    /// - Parameter lanes: false to hash every message with `Insecure.MD5`, as a CPU without AVX-512F
    ///   always does.
    static func digests(of messages: [[UInt8]], lanes: Bool = isAvailable) -> [BodyDigest] {
        var digests = [BodyDigest?](repeating: nil, count: messages.count)
        if lanes && isAvailable {
            for start in stride(from: 0, to: messages.count, by: count) {
                let group = Array(start..<min(start + count, messages.count))
                for (index, digest) in laneDigests(of: group, in: messages) { digests[index] = digest }
            }
        }
        return digests.indices.map { index in
            digests[index] ?? messages[index].withUnsafeBytes { bytes in
                var md5 = Insecure.MD5()
                md5.update(bufferPointer: bytes)
                return BodyDigest(md5.finalize())
            }
        }
    }

    /// How many of the shortest of at most sixteen messages, `blocks` whole blocks each (sorted
    /// shortest first), are best hashed in lanes, the others alone: 0 (all alone) or at least 2.
    static func lanesThatPay(_ blocks: [Int]) -> Int {
        // k in lanes cost stepCost × (the longest of them) steps; the rest, one block each.
        var rest = Double(blocks.reduce(0, +))
        var best = (lanes: 0, cost: rest)
        for (longest, length) in blocks.enumerated() {
            rest -= Double(length)
            let cost = stepCost * Double(length) + rest
            if cost < best.cost { best = (longest + 1, cost) }
        }
        return best.lanes
    }

    /// Hashes in lanes the messages of `group` (at most sixteen positions in `messages`) that pay,
    /// and returns their digests by position; the others are left out.
    private static func laneDigests(of group: [Int], in messages: [[UInt8]]) -> [(Int, BodyDigest)] {
        let sorted = group.sorted { messages[$0].count < messages[$1].count }
        let blocks = sorted.map { messages[$0].count / blockSize }
        let chosen = Array(sorted.prefix(lanesThatPay(blocks)))
        guard !chosen.isEmpty else { return [] }
        var md5 = MD5Lanes()
        for lane in chosen.indices { md5.reset(lane) }
        var result: [(Int, BodyDigest)] = []
        // The messages stay pinned while the kernel reads them: the calls nest, one per lane.
        func pin(_ lane: Int, _ bases: [UnsafeRawBufferPointer]) {
            guard lane == chosen.count else {
                return messages[chosen[lane]].withUnsafeBytes { pin(lane + 1, bases + [$0]) }
            }
            // Every lane runs until the shortest busy one has no whole block left, then drops out.
            var done = 0
            for target in Set(blocks.prefix(chosen.count)).sorted() where target > done {
                let pointers = (0..<count).map { lane -> UnsafePointer<UInt8>? in
                    guard lane < chosen.count, bases[lane].count / blockSize > done else { return nil }
                    return bases[lane].baseAddress!.assumingMemoryBound(to: UInt8.self) + done * blockSize
                }
                md5.update(pointers, blocks: target - done)
                done = target
            }
            for (lane, index) in chosen.enumerated() {
                let base = bases[lane]
                let tail = UnsafeRawBufferPointer(rebasing: base[(base.count / blockSize * blockSize)...])
                result.append((index, md5.finish(lane, tail: tail, totalLength: UInt64(base.count))))
            }
        }
        pin(0, [])
        return result
    }
}
