extension SiteUnpacker {
    /// A URL not written, with where it is listed: skipped URLs are reported as the whole plan used
    /// to be made, the records that are not files first (phase 0), then names and clashes in key
    /// order (1), then files needed as folders (2).
    struct OrderedSkip {
        var phase: Int
        var order: Int
        var skipped: Skipped
    }

    /// The files to write, in path order, and what planning them found.
    struct Plan {
        /// The files, sorted by path (``PlannedFile/precedes(_:_:)``).
        var files: SpilledSortIterator<PlannedFile>
        /// Whether paths start with an origin folder (the archive has several origins).
        var withOrigin: Bool
        /// Files and bytes planned, before duplicates and clashes are taken out.
        var totals: (files: Int, bytes: UInt64)
        var redirects = 0
        var skipped: [OrderedSkip] = []
    }

    /// Reads the records once in key order and plans each GET response's file (origin, path, the
    /// body entry from its own leaf, modification time) into a sort by path spilled to a temporary
    /// file, so that memory does not grow with the number of records.
    ///
    /// - Throws: page and index errors; `io` when a sorted run cannot be spilled.
    func plan(_ reader: ArchiveReader) throws -> Plan {
        var skipped: [OrderedSkip] = []
        var redirects = 0
        let sort = SpilledSort<PlannedFile>(prefix: "webarc-unpack")
        var origins = Set<[UInt8]>()
        var unsafeOrigins = 0
        var order = 0
        var totals = (files: 0, bytes: UInt64(0))
        try reader.forEachEntryDecodedAhead { entry in
            defer { order += 1 }
            guard case .response(let response) = entry.record, response.request.method == "GET" else {
                if case .redirect = entry.record {
                    redirects += 1
                } else {
                    skipped.append(
                        OrderedSkip(
                            phase: 0, order: order, skipped: Skipped(url: entry.key, reason: "not a GET response")))
                }
                return
            }
            let canonical = String(entry.key.dropFirst(4))
            var origin: [UInt8] = []
            let segments: ArraySlice<String>
            if let path = UnpackPlan.relativePath(forCanonicalURL: canonical, includeOrigin: true) {
                origin = Array(path[0].utf8)
                origins.insert(origin)
                segments = path.dropFirst()
            } else if let path = UnpackPlan.relativePath(forCanonicalURL: canonical, includeOrigin: false) {
                // A name only without its origin folder: written when the archive has one origin.
                unsafeOrigins += 1
                segments = path[...]
            } else {
                skipped.append(
                    OrderedSkip(phase: 1, order: order, skipped: Skipped(url: canonical, reason: Self.unsafeName)))
                return
            }
            let modified = restoresModificationTimes ? Self.lastModified(response.headers) : nil
            try sort.append(
                PlannedFile(
                    order: order, url: canonical, origin: origin, segments: segments.map { Array($0.utf8) },
                    body: try reader.bodyEntry(response.body, known: entry.body), modified: modified))
            totals.files += 1
            totals.bytes += response.bodyLength
        }
        let withOrigin = origins.count > 1
        var sorted = try sort.sorted()
        if !withOrigin && unsafeOrigins > 0 && !origins.isEmpty {
            // One origin folder, left out: the URLs whose origin is no safe name sort with the others.
            let again = SpilledSort<PlannedFile>(prefix: "webarc-unpack")
            while var file = try sorted.next() {
                file.origin = []
                try again.append(file)
            }
            sorted = try again.sorted()
        }
        return Plan(files: sorted, withOrigin: withOrigin, totals: totals, redirects: redirects, skipped: skipped)
    }

    static let unsafeName = "no safe file name (not http(s), or a name over 255 bytes)"
}
