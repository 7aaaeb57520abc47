import Crypto

/// Which body positions are dictionary anchors (spec Appendix C step 13), by one of the two rules
/// `Writer.anchors` names:
///
/// - **every *n*-th** (`anchors` absent): position *p* is an anchor when *p* mod *n* is 0. A body
///   added or removed early in the order moves every later anchor, so applying an update that
///   adds or drops one page codes again every body after it.
/// - **keyed** (`anchors` 1, since 2.1.5): position 0 is an anchor; any other position *p* is one
///   when the previous anchor is at least ⌊3*n*/2⌋ back, or at least ⌊3*n*/4⌋ back and the body at
///   *p* is a *candidate*: 8 KiB to 64 KiB long (the whole body fits the dictionary, so its
///   dependants see both its head and its tail) and the key of its record hashes to a multiple of
///   ⌊*n*/8⌋ (the first 8 bytes of the key's SHA-256, big-endian). Anchors follow the keys around
///   them, so a page added or dropped moves at most the next few, and an apply codes again only
///   the bodies near it; and they are bodies that make good dictionaries.
///
/// Positions past the keys a keyed plan was given take no candidate (only the ⌊3*n*/2⌋ rule).
public struct AnchorPlan: Sendable, Equatable {
    /// Bodies per anchor (*n*); 0: no anchors, dictionaries off.
    public let interval: Int
    /// For the keyed rule, each position's anchor position; nil: every *n*-th.
    private let anchorPositions: [Int]?

    /// The every-*n*-th rule.
    public init(interval: Int) {
        self.interval = max(0, interval)
        anchorPositions = nil
    }

    /// The keyed rule, given for each position in order the lookup key of the record whose body
    /// takes it and that body's length.
    public init<Bodies: Sequence>(interval: Int, bodies: Bodies) where Bodies.Element == (key: [UInt8], length: UInt64) {
        self.interval = max(0, interval)
        guard self.interval > 0 else {
            anchorPositions = nil
            return
        }
        var positions: [Int] = []
        var anchor = 0
        for (position, body) in bodies.enumerated() {
            let candidate = Self.isCandidate(key: body.key, length: body.length, interval: self.interval)
            if Self.startsAnchor(position: position, previousAnchor: anchor, candidate: candidate, interval: self.interval) {
                anchor = position
            }
            positions.append(anchor)
        }
        anchorPositions = positions
    }

    /// Whether this plan follows the keyed rule (`Writer.anchors` 1).
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
    /// the keyed rule.
    static func isCandidate(key: [UInt8], length: UInt64, interval: Int) -> Bool {
        guard candidateLengths.contains(length) else { return false }
        let digest = SHA256.hash(data: key)
        let prefix = digest.withUnsafeBytes { bytes in bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        return prefix % UInt64(max(1, interval / 8)) == 0
    }

    /// The lengths of a candidate body: at least 8 KiB, and no longer than the dictionary.
    static let candidateLengths: ClosedRange<UInt64> = 8192...UInt64(ChunkEntry.maxDictionaryLength)

    /// Whether `position` is an anchor under the keyed rule.
    static func startsAnchor(position: Int, previousAnchor: Int, candidate: Bool, interval: Int) -> Bool {
        let gap = position - previousAnchor
        return position == 0 || gap >= maximumGap(interval) || (gap >= max(1, interval * 3 / 4) && candidate)
    }

    /// The distance after which the keyed rule makes an anchor whatever the key: ⌊3n/2⌋, at least 1.
    static func maximumGap(_ interval: Int) -> Int { max(1, interval * 3 / 2) }
}
