/// Byte ranges of a remote file already fetched, bounded in bytes, least recently used out first.
///
/// Segments are whatever was fetched in one response (a page, a body's chunks together, the tail),
/// so a read is served when one segment covers it whole. Segments may overlap; there are few
/// (hundreds), so lookups scan.
struct RangeCache {
    private struct Segment {
        let start: UInt64
        let bytes: [UInt8]
        var lastUse: UInt64
        var end: UInt64 { start + UInt64(bytes.count) }
    }

    private var segments: [Segment] = []
    private var clock: UInt64 = 0
    private(set) var cost = 0
    let maxCost: Int
    let maxCount: Int

    init(maxCost: Int, maxCount: Int = 4096) {
        self.maxCost = maxCost
        self.maxCount = maxCount
    }

    /// The `count` bytes at `offset` when one segment holds them all.
    mutating func read(at offset: UInt64, count: Int) -> [UInt8]? {
        guard let index = segmentIndex(covering: offset, count: count) else { return nil }
        clock += 1
        segments[index].lastUse = clock
        let segment = segments[index]
        let start = Int(offset - segment.start)
        if start == 0 && count == segment.bytes.count { return segment.bytes }
        return Array(segment.bytes[start..<start + count])
    }

    /// True when one segment holds all of `range`.
    func contains(_ range: Range<UInt64>) -> Bool {
        segmentIndex(covering: range.lowerBound, count: Int(range.upperBound - range.lowerBound)) != nil
    }

    /// Keeps `bytes` fetched at `offset`, evicting the least recently used segments beyond the bounds.
    /// A segment larger than the whole cache is not kept.
    mutating func insert(_ bytes: [UInt8], at offset: UInt64) {
        guard !bytes.isEmpty, bytes.count <= maxCost else { return }
        if contains(offset..<offset + UInt64(bytes.count)) { return }
        clock += 1
        segments.append(Segment(start: offset, bytes: bytes, lastUse: clock))
        cost += bytes.count
        while cost > maxCost || segments.count > maxCount {
            let oldest = segments.indices.min { segments[$0].lastUse < segments[$1].lastUse }!
            cost -= segments[oldest].bytes.count
            segments.remove(at: oldest)
        }
    }

    private func segmentIndex(covering offset: UInt64, count: Int) -> Int? {
        let end = offset + UInt64(count)
        return segments.firstIndex { $0.start <= offset && $0.end >= end }
    }
}
