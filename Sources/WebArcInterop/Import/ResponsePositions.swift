import WebArc

/// Gives every kept response its body's position (spec Appendix C step 13: each response's body,
/// duplicates and empty bodies included, in the records' insertion order) while the providers
/// store the distinct bodies in the order the records first use them.
///
/// A provider calls ``before(storing:writer:stored:)`` just before it stores a body: the responses
/// between the last first use and this one (repeats of bodies stored earlier, empty bodies) take
/// their positions first, so that the writer's positions are the records' and a dictionary
/// interval gives the archive `webarc apply` writes again from an update.
struct ResponsePositions {
    private let kept: [Capture]
    /// Body → the index in `kept` of the first response that uses it.
    private let firstUse: [BodyID: Int]
    /// The next response (index in `kept`) whose position is not taken yet.
    private var cursor = 0
    /// Index in `kept` → the payload of its position, for the responses that took one as a repeat
    /// or an empty body (first uses are the providers' stored payloads).
    private(set) var taken: [Int: StoredPayload] = [:]

    init(kept: [Capture]) {
        self.kept = kept
        var firstUse: [BodyID: Int] = [:]
        for (index, capture) in kept.enumerated() {
            guard case .response = capture.kind, let body = capture.body, firstUse[body] == nil else { continue }
            firstUse[body] = index
        }
        self.firstUse = firstUse
    }

    /// Takes the positions of the responses before `body`'s first use; the store that follows
    /// takes that one's.
    mutating func before(storing body: BodyID, writer: ArchiveWriter, stored: (BodyID) -> StoredPayload?) throws {
        guard let first = firstUse[body], first >= cursor else { return }
        try take(upTo: first, writer: writer, stored: stored)
        cursor = first + 1
    }

    /// Takes the positions of the responses left once every body is stored.
    mutating func finish(writer: ArchiveWriter, stored: (BodyID) -> StoredPayload?) throws {
        try take(upTo: kept.count, writer: writer, stored: stored)
        cursor = kept.count
    }

    /// The payload response `index` answers with: its body stored earlier, or an empty body.
    func payload(of index: Int, payloads: [BodyID: StoredPayload]) -> StoredPayload? {
        taken[index] ?? kept[index].body.flatMap { payloads[$0] }
    }

    private mutating func take(upTo end: Int, writer: ArchiveWriter, stored: (BodyID) -> StoredPayload?) throws {
        guard cursor < end else { return }
        for index in cursor..<end {
            guard case .response = kept[index].kind else { continue }
            if let body = kept[index].body, let earlier = stored(body) {
                taken[index] = StoredPayload(
                    body: try writer.addBody(repeating: earlier.body), remaining: earlier.remaining)
            } else {
                taken[index] = StoredPayload(body: try writer.addBody([UInt8]()), remaining: [])
            }
        }
    }
}
