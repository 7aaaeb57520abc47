extension Verification {
    /// One record entry read for the record checks: its object and what it parses to, or the
    /// error that stopped it.
    typealias RecordEntry = Result<(object: DecodedObject, parsed: RecordObjects.Parsed), Error>

    /// Before the walk reaches the record tree: the metadata object's check, and what the record
    /// checks need to know from the body tree.
    func startRecords() {
        checkMetadataObject()
        layered = reader.trailer.requiredFeatures.contains(.layer)
        // Until ``finishTrees()`` merges the copies, `references` takes every copy to be in a body
        // tree that read whole, as in a sound archive; ``finishRecords()`` makes it again if not.
        if !incomplete.contains(.bodies) { missingFromBodyTree = [] }
    }

    /// The checks of one record leaf the walk read, each object parsed once: its key order and
    /// copies (`trees`), then each record's key against its request's canonical key (`trees`),
    /// `objects`, `references`, `redirects` (problems are sorted by check in the report), and its
    /// records counted for `totals`.
    func visitRecordLeaf(_ leaf: RecordLeaf) {
        let first = Int(recordEntryCount)
        checkRecordLeafOrder(leaf)
        let entries = parsedEntries(leaf)
        let bodies = leaf.bodies
        checkKeys(leaf, first, entries)
        checkObjects(leaf, first, entries, layered: layered)
        checkReferences(leaf, first, entries, bodies)
        checkRedirects(leaf, first, entries)
        countTotals(leaf, entries, bodies)
    }

    /// `references` again, when the copy check found what the walk took for granted: a copy the
    /// body tree lacks, or trees out of order (then compared through an index in memory).
    func finishRecords() {
        guard bodyIndex != nil || !(missingFromBodyTree?.isEmpty ?? true) else { return }
        remakeReferences()
    }

    /// `references` made again, for every record leaf that read, with what is known now of the
    /// body tree.
    func remakeReferences() {
        clearProblems(in: "references")
        forEachRecordLeaf { leaf, first in checkReferences(leaf, first, parsedEntries(leaf), leaf.bodies) }
    }

    /// Each entry's object, parsed with its header lists checked but not kept (no check needs
    /// their text).
    private func parsedEntries(_ leaf: RecordLeaf) -> [RecordEntry] {
        leaf.entries.indices.map { index in
            Result {
                let object = try leaf.object(index)
                return (object, try RecordObjects.parse(object, keepingHeaders: false))
            }
        }
    }

    /// Counts a leaf's records for `totals`.
    private func countTotals(_ leaf: RecordLeaf, _ entries: [RecordEntry], _ bodies: [BodyEntry]) {
        let copies = Dictionary(bodies.map { ($0.reference, $0) }, uniquingKeysWith: { first, _ in first })
        for (index, entry) in entries.enumerated() {
            switch entry {
            case .success((_, .record(let record))):
                guard let key = try? leaf.keyText(index) else {
                    totalsComplete = false
                    continue
                }
                var inBases = false
                if case .response(let response) = record {
                    inBases = copies[response.body]?.chunks.allSatisfy { $0.layer > 0 } ?? false
                }
                walkedTotals.add(record, key: key, bodyInBases: inBases)
            case .success: break
            case .failure: totalsComplete = false
            }
        }
    }

    /// `totals`: the metadata's `Totals`, when it has one, equal what the trees hold (spec §7.3);
    /// skipped when a tree could not be read whole or a record did not parse.
    func checkTotals() {
        guard metadataReadable, totalsComplete, incomplete.isEmpty,
            let metadata = try? reader.metadata, let stored = metadata.totals
        else { return }
        let walked = walkedTotals.totals(layered: !metadata.bases.isEmpty)
        guard let difference = stored.firstDifference(from: walked) else { return }
        add(
            "totals",
            WebArcError.badTotals(
                field: difference.field, page: reader.trailer.metadata.offset,
                reason: "is \(difference.stored), the trees hold \(difference.walked)"))
    }

    /// `objects`, for the metadata object: `bases` only with required feature bit 0.
    private func checkMetadataObject() {
        guard metadataReadable else { return }
        do {
            if try !reader.metadata.bases.isEmpty && !reader.trailer.requiredFeatures.contains(.layer) {
                add(
                    "objects",
                    WebArcError.corruptIndex(
                        page: reader.trailer.metadata.offset, position: nil,
                        reason: "Archive.bases in an archive without required feature bit 0"))
            }
        } catch {
            add("objects", error)
        }
    }

    /// `objects`: every record tree object against §7 (layout, known fields' types and values,
    /// required keys), and the classes allowed in the record tree.
    private func checkObjects(_ leaf: RecordLeaf, _ first: Int, _ entries: [RecordEntry], layered: Bool) {
        for (index, entry) in entries.enumerated() {
            let record = UInt32(clamping: first + index)
            switch entry {
            case .success((let object, .record(let parsed))):
                report.records += 1
                if parsed.isTombstone && !layered {
                    add(
                        "objects", object.corrupt("a tombstone in an archive without required feature bit 0"),
                        record: record, url: parsed.request.url)
                }
            case .success((let object, .other(let name))):
                add("objects", object.corrupt("a \(name) is not a record"), record: record)
            case .success((_, .unknown)):
                break
            case .failure(let error):
                add("objects", error, record: record)
            }
        }
    }

    /// `references`: every response's body is in its leaf and in the body tree, with the length its
    /// `bodyLength` says; every body entry of a leaf is named by one of its responses.
    private func checkReferences(_ leaf: RecordLeaf, _ first: Int, _ entries: [RecordEntry], _ bodies: [BodyEntry]) {
        var copies: [BodyReference: BodyEntry] = [:]
        for body in bodies { copies[body.reference] = body }
        var named = Set<BodyReference>()
        var unparsed = false
        for (index, entry) in entries.enumerated() {
            guard case .success((let object, let parsed)) = entry else {
                unparsed = true
                continue
            }
            guard case .record(.response(let response)) = parsed else { continue }
            let record = UInt32(clamping: first + index)
            let url = response.request.url
            named.insert(response.body)
            let copy = copies[response.body]
            if copy == nil {
                add(
                    "references", WebArcError.bodyNotFound(body: response.body, page: leaf.page), record: record,
                    url: url)
            }
            if bodyTreeLacks(response.body, copy: copy) {
                add(
                    "references", WebArcError.bodyNotFound(body: response.body, page: leaf.page), record: record,
                    url: url)
            }
            if let length = copy?.length ?? bodyTreeLength(response.body), length != response.bodyLength {
                let position = try? object.field("bodyLength", type: FieldType.uint)?.position
                add(
                    "references",
                    corrupt(
                        leaf.page, position ?? object.position,
                        "bodyLength \(response.bodyLength), but body \(response.body) holds \(length) bytes"),
                    record: record, url: url)
            }
        }
        guard !unparsed else { return }
        var reported = Set<BodyReference>()
        for body in bodies where !named.contains(body.reference) && reported.insert(body.reference).inserted {
            add(
                "references",
                corrupt(leaf.page, body.origin.position, "body entry \(body.reference) is named by no response"))
        }
    }

    /// `redirects`: statuses allowed, targets absolute; a target the archive does not hold is a
    /// warning.
    private func checkRedirects(_ leaf: RecordLeaf, _ first: Int, _ entries: [RecordEntry]) {
        for (index, entry) in entries.enumerated() {
            guard case .success((let object, .record(.redirect(let redirect)))) = entry else { continue }
            let record = UInt32(clamping: first + index)
            let url = redirect.request.url
            if !RedirectRecord.allowedStatuses.contains(redirect.status) {
                let position = try? object.field("status", type: FieldType.uint)?.position
                add(
                    "redirects",
                    corrupt(
                        leaf.page, position ?? object.position,
                        "redirect status \(redirect.status) is not 301, 302, 303, 307 or 308"), record: record, url: url
                )
            }
            guard let key = try? URLKey.key(method: "GET", url: redirect.target) else {
                let position = try? object.field("target", type: FieldType.string)?.position
                add(
                    "redirects",
                    corrupt(
                        leaf.page, position ?? object.position,
                        "redirect target \"\(redirect.target)\" is not an absolute URL"), record: record, url: url)
                continue
            }
            if (try? reader.lookup(key: key)) == nil {
                warn(
                    "redirects", code: "redirect-target-missing", "target \(redirect.target) is not in the archive",
                    record: record, url: url)
            }
        }
    }

    /// For each body in `bodies`, the first record (in key order) whose response names it, so that
    /// a damaged body is reported with a record and URL a person can act on.
    func firstUsers(of bodies: Set<BodyReference>) -> [BodyReference: (record: UInt32, url: String)] {
        var found: [BodyReference: (record: UInt32, url: String)] = [:]
        guard !bodies.isEmpty else { return found }
        forEachRecordLeaf { leaf, first in
            for index in leaf.entries.indices where found.count < bodies.count {
                guard let (_, parsed) = parsed(leaf, index), case .record(.response(let response)) = parsed,
                    bodies.contains(response.body), found[response.body] == nil
                else { continue }
                found[response.body] = (UInt32(clamping: first + index), response.request.url)
            }
        }
        return found
    }
}
