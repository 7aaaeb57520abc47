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
package struct AnchorPlan: Sendable, Equatable {
    /// The rules that need each position's key and body length.
    package enum KeyedRule: Sendable, Equatable {
        /// `Writer.anchors` 1 (2.1.5): a hash a multiple of ⌊*n*/8⌋, ⌊3*n*/4⌋ after the last anchor.
        case keyed
        /// `Writer.anchors` 2 (2.1.7): the smallest hash within ⌊3*n*/8⌋ positions either side.
        case localMinimum

        /// The rule that `Writer.anchors` names (1 or 2).
        package var anchorRule: WriterRecipe.AnchorRule { self == .keyed ? .keyed : .localMinimum }
    }

    /// Bodies per anchor (*n*); 0: no anchors, dictionaries off.
    package let interval: Int
    /// The rule, as `Writer.anchors` names it.
    package let rule: WriterRecipe.AnchorRule
    /// For a keyed rule, the anchor positions in order and the number of positions whose keys
    /// were given; nil: every *n*-th. A position takes the last anchor at or before it, so the
    /// anchors alone (about one position in *n*) say it: a table of every position's anchor
    /// took 8 bytes a body.
    private let keyedAnchors: (positions: [Int], count: Int)?

    /// The every-*n*-th rule.
    package init(interval: Int) {
        self.interval = max(0, interval)
        rule = .everyNth
        keyedAnchors = nil
    }

    /// A rule keyed by the records, given for each position in order the lookup key of the record
    /// whose body takes it and that body's length.
    package init<Bodies: Sequence>(interval: Int, bodies: Bodies, rule: KeyedRule)
    where Bodies.Element == (key: [UInt8], length: UInt64) {
        self.interval = max(0, interval)
        guard self.interval > 0 else {
            self.rule = .everyNth
            keyedAnchors = nil
            return
        }
        self.rule = rule.anchorRule
        switch rule {
        case .keyed: keyedAnchors = Self.keyedAnchors(bodies, interval: self.interval)
        case .localMinimum: keyedAnchors = Self.localMinimumAnchors(bodies, interval: self.interval)
        }
    }

    /// Whether this plan depends on the records' keys and body lengths (`Writer.anchors` 1 or 2).
    package var isKeyed: Bool { keyedAnchors != nil }

    /// Whether `position` is an anchor's.
    package func isAnchor(_ position: Int) -> Bool {
        anchor(of: position) == position
    }

    /// The anchor position a body at `position` takes its dictionary from (itself for an anchor),
    /// or nil when dictionaries are off.
    package func anchor(of position: Int) -> Int? {
        guard interval > 0, position >= 0 else { return nil }
        guard let (anchors, count) = keyedAnchors else { return position - position % interval }
        if position < count {
            // The last anchor at or before the position (the first position is always one).
            var low = 0
            var high = anchors.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if anchors[middle] <= position { low = middle } else { high = middle - 1 }
            }
            return anchors[low]
        }
        // Past the keys given: no candidates, so an anchor every ⌊3n/2⌋ after the last one known.
        var anchor = anchors.last ?? 0
        let gap = Self.maximumGap(interval)
        anchor += (position - anchor) / gap * gap
        return anchor
    }

    package static func == (lhs: AnchorPlan, rhs: AnchorPlan) -> Bool {
        lhs.interval == rhs.interval && lhs.rule == rhs.rule
            && lhs.keyedAnchors?.positions == rhs.keyedAnchors?.positions
            && lhs.keyedAnchors?.count == rhs.keyedAnchors?.count
    }
}
