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
        var layer: Int32
        /// Its media type's number in ``SimilarBodies/mediaTypes``.
        var mediaType: UInt32
        /// Which candidate it was in key order: ties of length go to the earlier one.
        var order: UInt32
        var length: UInt64
        var body: BodyReference
    }

    /// Candidates sketched per new body, at most.
    static let maxCandidates = 24
    /// The least share of the new body's sketch a candidate must have.
    static let minimumResemblance = 0.2

    let stack: LayerStack
    /// Sorted by media type, length, then order: a lookup is a binary search, not a scan of every
    /// body of the stack for every new one.
    private let candidates: [Candidate]
    /// The media types the candidates have, numbered.
    private let mediaTypes: [String?: UInt32]

    /// Collects the candidates from the old stack's layered view, read in key order.
    ///
    /// - Throws: ``WebArcError`` when a page of the stack is damaged.
    init(stack: LayerStack) throws {
        var gathering = Gathering()
        try stack.forEachKey { _, records in
            for entry in records.entries { gathering.add(entry.record, layer: records.layer) }
        }
        self.init(stack: stack, gathering)
    }

    /// Collects the candidates from records of the old stack's layered view, in key order.
    init<S: Sequence>(stack: LayerStack, records: S) where S.Element == (layer: Int, record: ArchiveRecord) {
        var gathering = Gathering()
        for (layer, record) in records { gathering.add(record, layer: layer) }
        self.init(stack: stack, gathering)
    }

    private init(stack: LayerStack, _ gathering: Gathering) {
        self.stack = stack
        mediaTypes = gathering.mediaTypes
        candidates = gathering.sorted()
    }

    /// Candidates as the view gives them: each body of a layer once, as first seen.
    private struct Gathering {
        private struct Seen: Hashable {
            var layer: Int
            var body: BodyReference
        }

        var candidates: [Candidate] = []
        var mediaTypes: [String?: UInt32] = [:]
        private var seen = Set<Seen>()

        mutating func add(_ record: ArchiveRecord, layer: Int) {
            guard case .response(let response) = record, response.bodyLength > 0,
                response.bodyLength <= BodyTransfer.wholeLimit,
                seen.insert(Seen(layer: layer, body: response.body)).inserted
            else { return }
            let mediaType = mediaTypes[response.mimeType] ?? UInt32(mediaTypes.count)
            mediaTypes[response.mimeType] = mediaType
            candidates.append(
                Candidate(
                    layer: Int32(layer), mediaType: mediaType, order: UInt32(truncatingIfNeeded: candidates.count),
                    length: response.bodyLength, body: response.body))
        }

        /// By media type, length and order.
        func sorted() -> [Candidate] {
            candidates.sorted { ($0.mediaType, $0.length, $0.order) < ($1.mediaType, $1.length, $1.order) }
        }
    }

    /// The ``maxCandidates`` candidates of `mimeType` nearest to `length` (within a factor of
    /// two), nearest first, earlier first among equally near.
    func nearest(to length: UInt64, mimeType: String?) -> [Candidate] {
        guard let mediaType = mediaTypes[mimeType] else { return [] }
        let split = firstIndex { ($0.mediaType, $0.length) >= (mediaType, length) }
        func distance(_ candidate: Candidate) -> UInt64 {
            candidate.length > length ? candidate.length - length : length - candidate.length
        }
        func fits(_ index: Int) -> Bool {
            guard candidates.indices.contains(index) else { return false }
            let candidate = candidates[index]
            return candidate.mediaType == mediaType && candidate.length <= 2 * length && length <= 2 * candidate.length
        }
        // Walks out from the split, nearer side first, and keeps going while a tie with the last
        // one taken is possible, so that the order of equals is settled below.
        var below = split - 1
        var above = split
        var taken: [Candidate] = []
        while true {
            let next: Int
            switch (fits(below), fits(above)) {
            case (false, false): return Self.ranked(taken, distance)
            case (true, false): next = below
            case (false, true): next = above
            case (true, true): next = distance(candidates[below]) <= distance(candidates[above]) ? below : above
            }
            if taken.count >= Self.maxCandidates, distance(candidates[next]) > distance(taken[taken.count - 1]) {
                return Self.ranked(taken, distance)
            }
            taken.append(candidates[next])
            if next == below { below -= 1 } else { above += 1 }
        }
    }

    private static func ranked(_ taken: [Candidate], _ distance: (Candidate) -> UInt64) -> [Candidate] {
        Array(taken.sorted { (distance($0), $0.order) < (distance($1), $1.order) }.prefix(maxCandidates))
    }

    /// The first index whose candidate satisfies `isAtOrAfter` (false then true over the array).
    private func firstIndex(where isAtOrAfter: (Candidate) -> Bool) -> Int {
        var low = 0
        var high = candidates.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(candidates[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    func previousVersion(
        of body: BodyEntry, in reader: ArchiveReader, mimeType: String?
    ) throws -> ArchiveWriter.PreviousVersion? {
        guard body.length > 0, body.length <= BodyTransfer.wholeLimit, !body.chunks.isEmpty else { return nil }
        let closest = nearest(to: body.length, mimeType: mimeType)
        guard !closest.isEmpty else { return nil }
        let sketch = ContentSketch(try reader.decodeChunk(body, index: 0))
        var best: (resemblance: Double, version: ArchiveWriter.PreviousVersion)?
        for candidate in closest {
            let layer = stack.layers[Int(candidate.layer)]
            let entry = try layer.bodyEntry(candidate.body)
            // A delta chunk cannot be a reference (spec §6.2): an update layer's changed bodies are.
            // Nor a slice's group or a frame alone (spec Appendix C step 14).
            guard let first = entry.chunks.first, !entry.isSlice, first.codec != .zstdDelta, first.codec != .zstd
            else { continue }
            let resemblance = sketch.resemblance(to: ContentSketch(try layer.decodeChunk(entry, index: 0)))
            if resemblance >= Self.minimumResemblance, resemblance > (best?.resemblance ?? 0) {
                best = (resemblance, ArchiveWriter.PreviousVersion(base: Int(candidate.layer), body: entry))
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
