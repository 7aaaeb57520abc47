import Crypto
import Foundation
import Synchronization

extension MD5Lanes {
    /// What one step of all sixteen lanes costs, in MD5 blocks hashed one stream at a time
    /// (`Insecure.MD5`), as measured on an AVX-512F core: two busy lanes already beat one stream
    /// (measurements: Tools/bench/NOTES.md, 'MD5Lanes').
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
            digests[index]
                ?? messages[index].withUnsafeBytes { bytes in
                    var md5 = Insecure.MD5()
                    md5.update(bufferPointer: bytes)
                    return BodyDigest(md5.finalize())
                }
        }
    }

    /// The MD5 of each of `messages` (``digests(of:lanes:)``), the messages split into runs of
    /// about equal bytes hashed on every core at once: for a caller with nothing else for the other
    /// core to do (a compact update's new bodies, before the writer starts).
    static func digestsOnEveryCore(of messages: [[UInt8]]) -> [BodyDigest] {
        let runs = CoreRuns.ofAboutEqualBytes(messages.map(\.count), runs: AvailableCores.count)
        guard runs.count > 1 else { return digests(of: messages) }
        let results = Mutex<[Int: [BodyDigest]]>([:])
        DispatchQueue.concurrentPerform(iterations: runs.count) { run in
            let found = digests(of: Array(messages[runs[run]]))
            results.withLock { $0[run] = found }
        }
        return results.withLock { found in (0..<runs.count).flatMap { found[$0]! } }
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
            hash(pinned, order: Array(pinned.indices)) { message, lane, lanes in
                result.append((order[message], lanes.finish(lane, message: pinned[message])))
            }
        }
        pin([])
        return result
    }
}
