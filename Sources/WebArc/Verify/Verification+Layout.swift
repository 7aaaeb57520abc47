extension Verification {
    /// `layout`: the lead's reserved bytes are zero, and the extents (chunks, dictionary chunks,
    /// pages) tile `[16, archiveLength − 256)` with no gap and no overlap (spec §3). The tiling
    /// needs every page, so it is skipped when `pages` found a problem.
    func checkLayout() {
        let reserved = reader.lead.reserved
        if let byte = (0..<4).first(where: { (reserved >> (8 * UInt32($0))) & 0xFF != 0 }) {
            add(
                "layout",
                WebArcError.badLayout(offset: 12 + UInt64(byte), reason: "reserved lead byte \(12 + byte) is not zero"))
        }
        guard !hasProblems(in: "pages") else { return }
        var extents = chunkExtents
        let chunkSet = Set(chunkExtents.map { Extent(offset: $0.offset, end: $0.end) })
        extents += dictionaryExtents.subtracting(chunkSet).map { ($0.offset, $0.end) }
        extents += pageExtents
        extents.sort { ($0.offset, $0.end) < ($1.offset, $1.end) }
        // A newer minor version may add pages reachable only from keys this verifier does not
        // know: bytes in no extent it knows are then a warning (spec §11.3).
        let newer = reader.trailer.minorVersion > Lead.newestMinor
        func gap(_ from: UInt64, _ to: UInt64) {
            let error = WebArcError.badLayout(offset: from, reason: "bytes \(from)..<\(to) are in no extent")
            if newer {
                warn(
                    "layout", code: error.code,
                    error.description + " this verifier knows (the archive is of a newer minor version)", offset: from)
            } else {
                add("layout", error)
            }
        }
        var position = UInt64(Lead.size)
        for extent in extents {
            if extent.offset > position {
                gap(position, extent.offset)
            } else if extent.offset < position {
                add(
                    "layout",
                    WebArcError.sharedExtent(
                        offset: extent.offset, reason: "extent \(extent.offset)..<\(extent.end) overlaps another"))
            }
            position = max(position, extent.end)
        }
        let end = reader.trailer.archiveLength - UInt64(Trailer.size)
        if position < end { gap(position, end) }
    }

    /// `appendix`: the blocks after the archive fill it exactly (spec §12.1); trust lists are the
    /// signing code's.
    func checkAppendix() {
        do {
            let bytes = try reader.appendixBytes()
            if !bytes.isEmpty { _ = try ArchiveAppendix(parsing: bytes, at: reader.archiveLength) }
        } catch {
            add("appendix", error)
        }
    }
}
