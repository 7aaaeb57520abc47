/// Sixteen messages hashed side by side, one per 32-bit lane of an AVX-512 register
/// (``MD5Lanes``, ``SHA256Lanes``): each lane is reset, fed whole 64-byte blocks (all busy lanes
/// the same number at once, or one lane alone), and finished with its last bytes.
protocol HashLanes {
    /// What a finished lane gives.
    associatedtype Digest: Equatable

    /// Number of lanes.
    static var count: Int { get }

    /// What one step of all sixteen lanes costs, in blocks of the same hash one stream at a time.
    static var stepCost: Double { get }

    /// Lanes with no message yet.
    init()

    /// Starts a new message in `lane`.
    mutating func reset(_ lane: Int)

    /// Hashes `blocks` blocks from each non-nil pointer (its lane's next `64 × blocks` bytes); lanes
    /// with nil keep their state.
    mutating func update(_ pointers: [UnsafePointer<UInt8>?], blocks: Int)

    /// Hashes `blocks` blocks at `bytes` into `lane` alone, one stream.
    mutating func update(_ lane: Int, _ bytes: UnsafePointer<UInt8>, blocks: Int)

    /// The digest of `lane`'s message, whose last bytes (fewer than 64) are `tail` and whose
    /// length in all is `totalLength`.
    func finish(_ lane: Int, tail: UnsafeRawBufferPointer, totalLength: UInt64) -> Digest
}

extension MD5Lanes: HashLanes {}
extension SHA256Lanes: HashLanes {}

extension HashLanes {
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

    /// The digest of `lane`'s message `message`, all of whose whole blocks the lane has hashed:
    /// finished with the bytes past its last whole block.
    func finish(_ lane: Int, message: UnsafeRawBufferPointer) -> Digest {
        let tail = UnsafeRawBufferPointer(
            rebasing: message[(message.count / MD5Lanes.blockSize * MD5Lanes.blockSize)...])
        return finish(lane, tail: tail, totalLength: UInt64(message.count))
    }

    /// Hashes `messages` in lanes, in the order `order` gives (positions in `messages`), each lane
    /// taking the next message when its own ends. `finished(message, lane, lanes)` is called for
    /// each message once its whole blocks are hashed, to finish the lane with its tail (the bytes
    /// past its last whole block) before the lane takes another message.
    static func hash(_ messages: [UnsafeRawBufferPointer], order: [Int], finished: (Int, Int, Self) -> Void) {
        let blockSize = MD5Lanes.blockSize
        var lanes = Self()
        /// Per lane: the message (its position in `messages`) and the blocks of it hashed.
        var busy = [(message: Int, done: Int)?](repeating: nil, count: count)
        var next = 0
        while true {
            for lane in 0..<count {
                while busy[lane] == nil && next < order.count {
                    let message = order[next]
                    next += 1
                    lanes.reset(lane)
                    // A message shorter than a block is all tail.
                    if messages[message].count < blockSize {
                        finished(message, lane, lanes)
                    } else {
                        busy[lane] = (message, 0)
                    }
                }
            }
            let left = busy.map { $0.map { messages[$0.message].count / blockSize - $0.done } }
            guard let step = left.compactMap({ $0 }).min() else { return }
            let pointers = (0..<count).map { lane -> UnsafePointer<UInt8>? in
                guard let current = busy[lane] else { return nil }
                return messages[current.message].baseAddress!.assumingMemoryBound(to: UInt8.self) + current.done
                    * blockSize
            }
            lanes.update(pointers, blocks: step)
            for lane in 0..<count where busy[lane] != nil {
                busy[lane]!.done += step
                if left[lane]! == step {
                    finished(busy[lane]!.message, lane, lanes)
                    busy[lane] = nil
                }
            }
        }
    }
}
