import Crypto

/// The rules of spec Appendix C step 13 that place anchors by the records' keys and body lengths:
/// keyed (`Writer.anchors` 1) and local minimum (2). ``AnchorPlan`` holds what they give.
extension AnchorPlan {
    /// Whether a body of `length` bytes, answering the record with `key`, is a candidate under
    /// the keyed rule (`Writer.anchors` 1).
    static func isCandidate(key: [UInt8], length: UInt64, interval: Int) -> Bool {
        guard candidateLengths.contains(length) else { return false }
        return keyHash(key) % UInt64(max(1, interval / 8)) == 0
    }

    /// The first 8 bytes, big-endian, of the SHA-256 of a record's key.
    static func keyHash(_ key: [UInt8]) -> UInt64 {
        SHA256.hash(data: key).withUnsafeBytes { bytes in bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    }

    /// The lengths of a candidate body: at least 8 KiB, and no longer than the dictionary.
    static let candidateLengths: ClosedRange<UInt64> = 8192...UInt64(ChunkEntry.maxDictionaryLength)

    /// Whether `position` is an anchor under the keyed rule.
    static func startsAnchor(position: Int, previousAnchor: Int, candidate: Bool, interval: Int) -> Bool {
        let gap = position - previousAnchor
        return position == 0 || gap >= maximumGap(interval) || (gap >= max(1, interval * 3 / 4) && candidate)
    }

    /// The distance after which a keyed rule makes an anchor whatever the key: ⌊3n/2⌋, at least 1.
    static func maximumGap(_ interval: Int) -> Int { max(1, interval * 3 / 2) }

    /// How far either side the local-minimum rule compares hashes: ⌊3n/8⌋, at least 1.
    static func window(_ interval: Int) -> Int { max(1, interval * 3 / 8) }

    /// The anchor positions under the keyed rule, and the number of positions.
    static func keyedAnchors<Bodies: Sequence>(_ bodies: Bodies, interval: Int) -> (positions: [Int], count: Int)
    where Bodies.Element == (key: [UInt8], length: UInt64) {
        var anchors: [Int] = []
        var anchor = 0
        var count = 0
        for (position, body) in bodies.enumerated() {
            let candidate = isCandidate(key: body.key, length: body.length, interval: interval)
            if startsAnchor(position: position, previousAnchor: anchor, candidate: candidate, interval: interval) {
                anchor = position
                anchors.append(position)
            }
            count += 1
        }
        return (anchors, count)
    }

    /// The anchor positions under the local-minimum rule, and the number of positions: a body of
    /// a candidate's length whose key hash, with its position, is the least of such bodies'
    /// within ``window(_:)`` either side.
    static func localMinimumAnchors<Bodies: Sequence>(
        _ bodies: Bodies, interval: Int
    ) -> (
        positions: [Int], count: Int
    ) where Bodies.Element == (key: [UInt8], length: UInt64) {
        let hashes: [UInt64?] = bodies.map { candidateLengths.contains($0.length) ? keyHash($0.key) : nil }
        let minima = localMinima(hashes, window: window(interval))
        var anchors: [Int] = []
        var anchor = 0
        for position in hashes.indices {
            if position == 0 || position - anchor >= maximumGap(interval) || minima[position] {
                anchor = position
                anchors.append(position)
            }
        }
        return (anchors, hashes.count)
    }

    /// For each position, whether it holds a hash whose (hash, position) is the least of those
    /// within `window` positions either side. One pass with a sliding-window minimum, so the cost
    /// does not grow with the window, which an archive's recipe sets (up to ⌊3(2³¹ − 1)/8⌋).
    static func localMinima(_ hashes: [UInt64?], window: Int) -> [Bool] {
        var minima = [Bool](repeating: false, count: hashes.count)
        // Positions in the window ahead of and behind the current one, by increasing (hash, position).
        var queue: [Int] = []
        var head = 0
        var added = 0
        for position in hashes.indices {
            while added < hashes.count && added - position <= window {
                if let hash = hashes[added] {
                    // A later position with an equal hash is the greater pair: it stays behind.
                    while queue.count > head, hashes[queue[queue.count - 1]]! > hash { queue.removeLast() }
                    queue.append(added)
                }
                added += 1
            }
            while queue.count > head && position - queue[head] > window { head += 1 }
            if head > 4_096 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            minima[position] = hashes[position] != nil && queue.count > head && queue[head] == position
        }
        return minima
    }
}
