import Crypto

extension MD5Lanes {
    /// What one step of all sixteen lanes costs, in MD5 blocks hashed one stream at a time
    /// (`Insecure.MD5`): measured 0.13 µs a step against 0.10 µs a block (Xeon with AVX-512F, one
    /// core). Two busy lanes already beat one stream.
    static let stepCost = 1.3

    /// The MD5 of each of `messages`, those that pay hashed side by side in lanes, the others by
    /// `Insecure.MD5`: the same digests either way.
    ///
    /// A lane step hashes one block of every lane, busy or idle. The messages in lanes go in
    /// longest first, and a lane whose message ends takes the next one, so the lanes stay busy
    /// until the last few short messages; a message much longer than the others (a 1 MiB page
    /// among 4 KiB ones) would keep one lane busy alone, and is hashed alone instead
    /// (``lanesThatPay(_:)``).
    /// - Parameter lanes: false to hash every message with `Insecure.MD5`, as a CPU without AVX-512F
    ///   always does.
    static func digests(of messages: [[UInt8]], lanes: Bool = isAvailable) -> [BodyDigest] {
        var digests = [BodyDigest?](repeating: nil, count: messages.count)
        if lanes && isAvailable {
            let shortestFirst = messages.indices.sorted { messages[$0].count < messages[$1].count }
            let share = lanesThatPay(shortestFirst.map { messages[$0].count / blockSize })
            for (index, digest) in laneDigests(of: shortestFirst.prefix(share).reversed(), in: messages) {
                digests[index] = digest
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

    /// How many of the shortest messages, `blocks` whole blocks each (sorted shortest first), are
    /// best hashed in lanes, the others alone: 0 (all alone) or at least 2.
    ///
    /// k messages in lanes take about `max(the longest of them, all their blocks / 16)` steps,
    /// each costing ``stepCost`` blocks; the others cost one block per block.
    static func lanesThatPay(_ blocks: [Int]) -> Int {
        var rest = Double(blocks.reduce(0, +))
        var inLanes = 0.0
        var best = (lanes: 0, cost: rest)
        for (longest, length) in blocks.enumerated() {
            rest -= Double(length)
            inLanes += Double(length)
            let cost = stepCost * max(Double(length), inLanes / Double(count)) + rest
            if cost < best.cost { best = (longest + 1, cost) }
        }
        return best.lanes
    }

    /// Hashes the messages at `order` (positions in `messages`) in lanes, in that order, each
    /// lane taking the next message when its own ends, and returns their digests by position.
    private static func laneDigests(of order: [Int], in messages: [[UInt8]]) -> [(Int, BodyDigest)] {
        guard !order.isEmpty else { return [] }
        var result: [(Int, BodyDigest)] = []
        result.reserveCapacity(order.count)
        // The messages stay pinned while the kernel reads them: the calls nest, one per message.
        func pin(_ pinned: [UnsafeRawBufferPointer]) {
            guard pinned.count == order.count else {
                return messages[order[pinned.count]].withUnsafeBytes { pin(pinned + [$0]) }
            }
            var md5 = MD5Lanes()
            /// Per lane: the message (its place in `order`) and the blocks of it hashed.
            var lanes = [(message: Int, done: Int)?](repeating: nil, count: count)
            var next = 0
            func finish(_ lane: Int) {
                let (message, done) = lanes[lane]!
                let bytes = pinned[message]
                let tail = UnsafeRawBufferPointer(rebasing: bytes[(done * blockSize)...])
                result.append((order[message], md5.finish(lane, tail: tail, totalLength: UInt64(bytes.count))))
                lanes[lane] = nil
            }
            while true {
                for lane in 0..<count {
                    while lanes[lane] == nil && next < order.count {
                        md5.reset(lane)
                        lanes[lane] = (next, 0)
                        next += 1
                        // A message shorter than a block is all tail.
                        if pinned[next - 1].count < blockSize { finish(lane) }
                    }
                }
                let left = lanes.map { $0.map { pinned[$0.message].count / blockSize - $0.done } }
                guard let step = left.compactMap({ $0 }).filter({ $0 > 0 }).min() else { break }
                let pointers = (0..<count).map { lane -> UnsafePointer<UInt8>? in
                    guard let current = lanes[lane] else { return nil }
                    return pinned[current.message].baseAddress!.assumingMemoryBound(to: UInt8.self) + current.done * blockSize
                }
                md5.update(pointers, blocks: step)
                for lane in 0..<count where lanes[lane] != nil {
                    lanes[lane]!.done += step
                    if left[lane]! == step { finish(lane) }
                }
            }
        }
        pin([])
        return result
    }
}
