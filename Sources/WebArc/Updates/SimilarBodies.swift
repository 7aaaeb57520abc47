/// Finds the body of an old stack that a body new under its URL is probably a near copy of (a page
/// added as an edited copy of another, a page renamed and edited), so that a diff codes it as a
/// delta too: spec Appendix C step 14 lets a previous version be any body a base holds.
///
/// Candidates are the bodies the old stack answers with that have the new body's media type and a
/// length within a factor of two of it; the ``maxCandidates`` nearest in length are sketched (their
/// first chunk, ``ContentSketch``) and the one sharing the most picks with the new body's first
/// chunk wins, when it shares at least ``minimumResemblance`` of them. The bound keeps a diff's time
/// and memory small whatever the stack's size; a candidate that does not pay costs nothing more,
/// since a delta chunk is stored only when it is the shorter coding.
struct SimilarBodies {
    /// A body the old stack answers some key with.
    struct Candidate {
        var layer: Int
        var body: BodyReference
        var length: UInt64
        var mimeType: String?
    }

    private struct Seen: Hashable {
        var layer: Int
        var body: BodyReference
    }

    /// Candidates sketched per new body, at most.
    static let maxCandidates = 24
    /// The least share of the new body's sketch a candidate must have.
    static let minimumResemblance = 0.2

    let stack: LayerStack
    private let candidates: [Candidate]

    /// Collects the candidates from the old stack's layered view, read in key order.
    ///
    /// - Throws: ``WebArcError`` when a page of the stack is damaged.
    init(stack: LayerStack) throws {
        var groups: [LayeredRecords] = []
        try stack.forEachKey { _, records in
            if records.entries.contains(where: Self.isCandidate) {
                groups.append(LayeredRecords(layer: records.layer, entries: records.entries.filter(Self.isCandidate)))
            }
        }
        self.init(stack: stack, groups: groups)
    }

    /// Whether `entry` is a response whose body could be a previous version.
    private static func isCandidate(_ entry: ArchiveEntry) -> Bool {
        guard case .response(let response) = entry.record else { return false }
        return response.bodyLength > 0 && response.bodyLength <= BodyTransfer.wholeLimit
    }

    /// Collects the candidates from the old stack's layered view (`groups`: its keys' records).
    init<S: Sequence>(stack: LayerStack, groups: S) where S.Element == LayeredRecords {
        self.stack = stack
        var seen = Set<Seen>()
        var candidates: [Candidate] = []
        for group in groups {
            for entry in group.entries {
                guard case .response(let response) = entry.record, response.bodyLength > 0,
                    response.bodyLength <= BodyTransfer.wholeLimit,
                    seen.insert(Seen(layer: group.layer, body: response.body)).inserted
                else { continue }
                candidates.append(
                    Candidate(
                        layer: group.layer, body: response.body, length: response.bodyLength,
                        mimeType: response.mimeType))
            }
        }
        self.candidates = candidates
    }

    /// The old body to code `body` (of `reader`) against, or nil when none resembles it enough.
    ///
    /// - Throws: read errors of the new body or of a candidate (a damaged chunk is never used).
    func previousVersion(
        of body: BodyEntry, in reader: ArchiveReader, mimeType: String?
    ) throws -> ArchiveWriter.PreviousVersion? {
        guard body.length > 0, body.length <= BodyTransfer.wholeLimit, !body.chunks.isEmpty else { return nil }
        let length = body.length
        let nearest = candidates.enumerated()
            .filter {
                $0.element.mimeType == mimeType && $0.element.length <= 2 * length && length <= 2 * $0.element.length
            }
            .sorted { lhs, rhs in
                let left = lhs.element.length > length ? lhs.element.length - length : length - lhs.element.length
                let right = rhs.element.length > length ? rhs.element.length - length : length - rhs.element.length
                return left != right ? left < right : lhs.offset < rhs.offset
            }
            .prefix(Self.maxCandidates)
        guard !nearest.isEmpty else { return nil }
        let sketch = ContentSketch(try reader.decodeChunk(body, index: 0))
        var best: (resemblance: Double, version: ArchiveWriter.PreviousVersion)?
        for (_, candidate) in nearest {
            let layer = stack.layers[candidate.layer]
            let entry = try layer.bodyEntry(candidate.body)
            // A delta chunk cannot be a reference (spec §6.2): an update layer's changed bodies are.
            guard let first = entry.chunks.first, first.codec != .zstdDelta else { continue }
            let resemblance = sketch.resemblance(to: ContentSketch(try layer.decodeChunk(entry, index: 0)))
            if resemblance >= Self.minimumResemblance, resemblance > (best?.resemblance ?? 0) {
                best = (resemblance, ArchiveWriter.PreviousVersion(base: candidate.layer, body: entry))
            }
        }
        return best?.version
    }
}

extension ArchiveReader {
    /// Whether this archive holds a body with the MD5, length and SHA-256 of `body` (any variant).
    func holds(_ body: BodyEntry) throws -> Bool {
        var variant: UInt32 = 0
        while true {
            let candidate: BodyEntry
            do {
                candidate = try bodyEntry(BodyReference(digest: body.reference.digest, variant: variant))
            } catch WebArcError.bodyNotFound {
                return false
            }
            if candidate.length == body.length && candidate.sha256 == body.sha256 { return true }
            variant += 1
        }
    }
}
