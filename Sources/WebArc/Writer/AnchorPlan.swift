import Crypto

/// Which body positions are dictionary anchors (spec Appendix C step 13), by one of the rules
/// `Writer.anchors` names:
///
/// - **every *n*-th** (`anchors` absent): position *p* is an anchor when *p* mod *n* is 0. A body
///   added or removed early in the order moves every later anchor, so applying an update that
///   adds or drops one page codes again every body after it.
/// - **keyed** (`anchors` 1, since 2.1.5): position 0 is an anchor; any other position *p* is one
///   when the previous anchor is at least ⌊3*n*/2⌋ back, or at least ⌊3*n*/4⌋ back and the body at
///   *p* is a *keyed candidate*: 8 KiB to 64 KiB long (the whole body fits the dictionary, so its
///   dependants see both its head and its tail) and the key of its record hashes to a multiple of
///   ⌊*n*/8⌋ (the first 8 bytes of the key's SHA-256, big-endian). Each anchor still depends on the
///   one before it, so where nearly every body is 8 KiB to 64 KiB a page added early can shift
///   every later anchor by one.
/// - **local minimum** (`anchors` 2, since 2.1.7; `webarc pack`'s): position 0 is an anchor; any
///   other position *p* is one when its body is 8 KiB to 64 KiB long and its key's hash is the
///   smallest of those bodies' within ⌊3*n*/8⌋ positions either side, or when the previous anchor
///   is ⌊3*n*/2⌋ back. Whether a body is a local minimum depends only on its neighbours, so the
///   anchors before and after a change meet again within a window of it, however uniform the site.
///
/// Positions past the keys a keyed plan was given take no candidate (only the ⌊3*n*/2⌋ rule).
public struct AnchorPlan: Sendable, Equatable {
    /// The rules that need each position's key and body length.
    public enum KeyedRule: Sendable, Equatable {
        /// `Writer.anchors` 1 (2.1.5): a hash a multiple of ⌊*n*/8⌋, ⌊3*n*/4⌋ after the last anchor.
        case keyed
        /// `Writer.anchors` 2 (2.1.7): the smallest hash within ⌊3*n*/8⌋ positions either side.
        case localMinimum

        /// The rule that `Writer.anchors` names (1 or 2).
        public var anchorRule: WriterRecipe.AnchorRule { self == .keyed ? .keyed : .localMinimum }
    }

    /// Bodies per anchor (*n*); 0: no anchors, dictionaries off.
    public let interval: Int
    /// The rule, as `Writer.anchors` names it.
    public let rule: WriterRecipe.AnchorRule
    /// For a keyed rule, each position's anchor position; nil: every *n*-th.
    private let anchorPositions: [Int]?

    /// The every-*n*-th rule.
    public init(interval: Int) {
        self.interval = max(0, interval)
        rule = .everyNth
        anchorPositions = nil
    }

    /// A rule keyed by the records, given for each position in order the lookup key of the record
    /// whose body takes it and that body's length.
    public init<Bodies: Sequence>(interval: Int, bodies: Bodies, rule: KeyedRule) where Bodies.Element == (key: [UInt8], length: UInt64) {
        self.interval = max(0, interval)
        guard self.interval > 0 else {
            self.rule = .everyNth
            anchorPositions = nil
            return
        }
        self.rule = rule.anchorRule
        switch rule {
        case .keyed: anchorPositions = Self.keyedPositions(bodies, interval: self.interval)
        case .localMinimum: anchorPositions = Self.localMinimumPositions(bodies, interval: self.interval)
        }
    }

    /// Whether this plan depends on the records' keys and body lengths (`Writer.anchors` 1 or 2).
    public var isKeyed: Bool { anchorPositions != nil }

    /// Whether `position` is an anchor's.
    public func isAnchor(_ position: Int) -> Bool {
        anchor(of: position) == position
    }

    /// The anchor position a body at `position` takes its dictionary from (itself for an anchor),
    /// or nil when dictionaries are off.
    public func anchor(of position: Int) -> Int? {
        guard interval > 0, position >= 0 else { return nil }
        guard let anchorPositions else { return position - position % interval }
        if position < anchorPositions.count { return anchorPositions[position] }
        // Past the keys given: no candidates, so an anchor every ⌊3n/2⌋ after the last one known.
        var anchor = anchorPositions.last ?? 0
        let gap = Self.maximumGap(interval)
        anchor += (position - anchor) / gap * gap
        return anchor
    }

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

    /// Each position's anchor under the keyed rule.
    private static func keyedPositions<Bodies: Sequence>(_ bodies: Bodies, interval: Int) -> [Int] where Bodies.Element == (key: [UInt8], length: UInt64) {
        var positions: [Int] = []
        var anchor = 0
        for (position, body) in bodies.enumerated() {
            let candidate = isCandidate(key: body.key, length: body.length, interval: interval)
            if startsAnchor(position: position, previousAnchor: anchor, candidate: candidate, interval: interval) {
                anchor = position
            }
            positions.append(anchor)
        }
        return positions
    }

    /// Each position's anchor under the local-minimum rule: a body of a candidate's length whose
    /// key hash, with its position, is the least of such bodies' within ``window(_:)`` either side.
    private static func localMinimumPositions<Bodies: Sequence>(_ bodies: Bodies, interval: Int) -> [Int] where Bodies.Element == (key: [UInt8], length: UInt64) {
        let hashes: [UInt64?] = bodies.map { candidateLengths.contains($0.length) ? keyHash($0.key) : nil }
        let minima = localMinima(hashes, window: window(interval))
        var positions: [Int] = []
        positions.reserveCapacity(hashes.count)
        var anchor = 0
        for position in hashes.indices {
            if position == 0 || position - anchor >= maximumGap(interval) || minima[position] {
                anchor = position
            }
            positions.append(anchor)
        }
        return positions
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
