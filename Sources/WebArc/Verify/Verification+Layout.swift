import Synchronization

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
        var pages: SpilledSortIterator<LayoutExtents.Extent>
        var chunks: SpilledSortIterator<LayoutExtents.Extent>
        do {
            pages = try pageExtents.sorted()
            chunks = try (chunkExtents ?? LayoutExtents()).sorted()
        } catch {
            add("layout", error)
            return
        }
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
        // Both lists in (offset, end, kind) order, merged; a dictionary with the extent of a chunk or
        // of another dictionary before it is that extent, not a second one (pages come last).
        var previous: LayoutExtents.Extent?
        var page: LayoutExtents.Extent?
        var chunk: LayoutExtents.Extent?
        do {
            (page, chunk) = (try pages.next(), try chunks.next())
        } catch {
            add("layout", error)
            return
        }
        while page != nil || chunk != nil {
            let extent: LayoutExtents.Extent
            do {
                if let left = page, chunk.map({ LayoutExtents.Extent.precedes(left, $0) }) ?? true {
                    extent = left
                    page = try pages.next()
                } else {
                    extent = chunk!
                    chunk = try chunks.next()
                }
            } catch {
                add("layout", error)
                return
            }
            defer { previous = extent }
            if extent.kind == .dictionary || extent.kind == .group, let previous,
                extent.kind == .dictionary || previous.kind == .group,
                previous.offset == extent.offset, previous.end == extent.end
            {
                continue
            }
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

/// Extents of the archive (pages, chunks, dictionaries) for `layout`, sorted by offset with memory
/// bounded whatever their number (``SpilledSort``). Filled by any thread (the walks of the trees
/// add their pages side by side); the order is total, so it does not depend on theirs.
final class LayoutExtents: Sendable {
    /// What an extent holds: in one (offset, end), chunks sort first and pages last.
    enum Kind: UInt8 {
        case chunk = 0
        /// A slice's chunk (spec §6.3): every slice of a group names it.
        case group = 1
        case dictionary = 2
        case page = 3
    }

    /// Stored bytes `offset..<end` of one kind.
    struct Extent: SpilledSortElement, Equatable {
        var offset: UInt64
        var end: UInt64
        var kind: Kind

        static func precedes(_ lhs: Extent, _ rhs: Extent) -> Bool {
            (lhs.offset, lhs.end, lhs.kind.rawValue) < (rhs.offset, rhs.end, rhs.kind.rawValue)
        }

        func encode(into writer: inout ByteWriter) {
            writer.write(offset)
            writer.write(end)
            writer.write(kind.rawValue)
        }

        static func decode(_ reader: inout ByteReader) throws -> Extent {
            Extent(
                offset: try reader.readUInt64(), end: try reader.readUInt64(),
                kind: Kind(rawValue: try reader.readUInt8()) ?? .page)
        }

        var heldSize: Int { 24 }
    }

    /// The sort, and the first error spilling a run met (thrown by ``sorted()``).
    private let state = Mutex<UncheckedBox<(sort: SpilledSort<Extent>, failure: (any Error)?)>>(
        UncheckedBox(value: (SpilledSort(prefix: "webarc-verify-extents", runBytes: 4 << 20), nil)))

    /// Adds an extent.
    func add(_ offset: UInt64, _ end: UInt64, _ kind: Kind) {
        state.withLock { state in
            guard state.value.failure == nil else { return }
            do {
                try state.value.sort.append(Extent(offset: offset, end: end, kind: kind))
            } catch {
                state = UncheckedBox(value: (state.value.sort, error))
            }
        }
    }

    /// The extents in (offset, end, kind) order; call once, after the last ``add(_:_:_:)``.
    ///
    /// - Throws: `io` when the temporary file could not be written or read.
    func sorted() throws -> SpilledSortIterator<Extent> {
        try state.withLock { state throws -> UncheckedBox<SpilledSortIterator<Extent>> in
            if let failure = state.value.failure { throw failure }
            return UncheckedBox(value: try state.value.sort.sorted())
        }.value
    }
}
