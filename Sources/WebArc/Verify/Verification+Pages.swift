import Foundation

extension Verification {
    /// `pages`: every page of both trees and the metadata page is read (digest, codec, bounds,
    /// type, structure; spec §5). The pages below a page that fails are not read.
    ///
    /// The same walk makes the checks of `trees` and of the records that need one page at a time
    /// (``checkInterior(_:_:_:)``, ``visitBodyLeaf(_:_:)``, ``visitRecordLeaf(_:)``), so that each
    /// page is read and decoded once; ``finishTrees()`` and ``finishRecords()`` complete them.
    ///
    /// - Parameter bodyTreeRead: called once the metadata page and the body tree are read, before
    ///   the record tree is (the body checks need only those).
    func checkPages(bodyTreeRead: () -> Void = {}) {
        let trailer = reader.trailer
        checkMetadataPage()
        if metadataReadable { walkSearchIndex() }
        for (tree, root) in [(Page.Tree.bodies, trailer.bodyRoot), (.records, trailer.recordRoot)] {
            if tree == .records {
                bodyTreeRead()
                startRecords()
            }
            addExtent(root)
            walk(root, tree, isRoot: true, parent: nil)
        }
    }

    /// `pages`, as ``checkPages(bodyTreeRead:)`` makes it, with the full-text index and the record
    /// tree walked on another thread while this one walks the body tree and then starts the body
    /// checks: the record checks run beside the body checks from the start, instead of after the
    /// index and the body tree (the walk of the record tree is a third of `verify`'s work).
    ///
    /// Each of the other walks has a verification of its own (problems, pages visited, counts);
    /// once they are through, this one takes what they found as if it had walked the index, the
    /// body tree, then the record tree: each check's problems in that order. The record checks
    /// take the body tree to be whole, as in a sound archive (``startRecords()``); if it is not,
    /// `references` is made again.
    ///
    /// - Returns: the body checks, started; and whether two walks met on one page (a damaged
    ///   archive), when nothing else this verification found is to be used.
    func checkPagesApart() -> (bodies: BodyCheckJob, walksMet: Bool) {
        let trailer = reader.trailer
        checkMetadataPage()
        let afterMetadata = problemCounts
        let search = Verification(reader: reader, progress: nil, pageExtents: pageExtents)
        let records = Verification(reader: reader, progress: nil, pageExtents: pageExtents)
        (search.metadataReadable, records.metadataReadable) = (metadataReadable, metadataReadable)
        let walks = DispatchGroup()
        let parts = UncheckedBox(value: (search, records))
        walks.enter()
        // A thread of its own: the body checks take as many of the global queue's threads as there
        // are cores, which it would otherwise hold one of.
        Thread {
            let (search, records) = parts.value
            if search.metadataReadable { search.walkSearchIndex() }
            records.startRecords()
            records.addExtent(trailer.recordRoot)
            records.walk(trailer.recordRoot, .records, isRoot: true, parent: nil)
            walks.leave()
        }.start()
        addExtent(trailer.bodyRoot)
        walk(trailer.bodyRoot, .bodies, isRoot: true, parent: nil)
        let bodies = startBodyChecks()
        walks.wait()
        let walksMet =
            !visited.isDisjoint(with: search.visited) || !visited.isDisjoint(with: records.visited)
            || !search.visited.isDisjoint(with: records.visited)
        guard !walksMet else { return (bodies, true) }
        takeProblems(of: search, at: afterMetadata)
        takeProblems(of: records)
        layered = records.layered
        incomplete.formUnion(records.incomplete)
        recordLeaves = records.recordLeaves
        recordEntryCount = records.recordEntryCount
        bodyCopies = records.bodyCopies
        bodyCopiesFailure = bodyCopiesFailure ?? records.bodyCopiesFailure
        walkedTotals.add(records.walkedTotals)
        totalsComplete = totalsComplete && records.totalsComplete
        report.records += records.report.records
        // The record checks took the body tree to be whole; one walk after the other would have
        // made `references` knowing it is not.
        if incomplete.contains(.bodies) { remakeReferences() }
        return (bodies, false)
    }

    /// `pages`, for the metadata page.
    private func checkMetadataPage() {
        addExtent(reader.trailer.metadata)
        do {
            _ = try reader.page(reader.trailer.metadata, .metadata)
            metadataReadable = true
        } catch {
            add("pages", error)
        }
    }

    func addExtent(_ reference: PageReference) {
        pageExtents.add(reference.offset, reference.offset &+ UInt64(reference.storedLength), .page)
    }

    /// Walks the subtree at `reference`; `parent` is where it is named (for `trees`: its key
    /// there must be its first key).
    func walk(_ reference: PageReference, _ tree: Page.Tree, isRoot: Bool, parent: ChildName?) {
        // A page named twice is read once (the second name is a shared extent for `layout`), so
        // that no file can make the walk revisit a subtree without end.
        guard visited.insert(reference).inserted else {
            if let parent, let page = try? reader.page(reference, .node(tree)) { checkFirstKey(page, parent) }
            return
        }
        let page: Page
        do {
            page = try reader.page(reference, .node(tree))
        } catch {
            add("pages", error)
            incomplete.insert(tree)
            return
        }
        if let parent { checkFirstKey(page, parent) }
        switch page {
        case .interior(let node):
            checkInterior(node, reference, tree)
            for (index, child) in node.children.enumerated() {
                addExtent(child)
                // A child at the wrong height is reported by `trees`; the walk does not go there.
                guard child.height &+ 1 == reference.height else {
                    wrongHeight(node, index, reference, tree)
                    incomplete.insert(tree)
                    continue
                }
                walk(
                    child, tree, isRoot: false,
                    parent: ChildName(
                        page: reference.offset, position: node.childPositions[index], key: node.keys[index], tree: tree)
                )
            }
        case .recordLeaf(let leaf):
            if !isRoot && leaf.entries.isEmpty { emptyLeaf(reference) }
            recordLeaves.append(reference)
            visitRecordLeaf(leaf)
        case .bodyLeaf(let leaf):
            if !isRoot && leaf.entries.isEmpty { emptyLeaf(reference) }
            bodyLeaves.append(reference)
            visitBodyLeaf(leaf, reference)
        case .metadata, .search:
            break
        }
    }

    /// The pages of the full-text index (spec §17), when the metadata names one: each is read
    /// (digest, codec, head and child references) and counts as an extent; what the payloads say
    /// is the search module's to check. Walked with a stack, each page once.
    func walkSearchIndex() {
        guard let metadata = try? reader.metadata else { return }
        // Bit 0 is set exactly when the metadata has `search`, bit 1 when it has `searchIndex`, bit 2
        // when it has `searchIndex3`, bit 3 when it has `searchIndex4` (spec §17); at most one of them.
        var roots: [PageReference] = []
        for (bit, key, root) in [
            (0, "search", metadata.searchIndex), (1, "searchIndex", metadata.searchIndexV2),
            (2, "searchIndex3", metadata.searchIndexV3), (3, "searchIndex4", metadata.searchIndexV4),
        ] {
            let flagged = reader.trailer.optionalFeatures & (1 << UInt64(bit)) != 0
            if let root { roots.append(root) }
            guard flagged != (root != nil) else { continue }
            add(
                "pages",
                WebArcError.corruptIndex(
                    page: reader.trailer.metadata.offset, position: nil,
                    reason: flagged
                        ? "optional feature bit \(bit) without \(key)" : "\(key) without optional feature bit \(bit)"))
        }
        guard let root = roots.first else { return }
        if roots.count > 1 {
            add(
                "pages",
                WebArcError.corruptIndex(
                    page: reader.trailer.metadata.offset, position: nil,
                    reason: "more than one of search, searchIndex, searchIndex3, searchIndex4"))
        }
        var pending = [root]
        addExtent(root)
        while let reference = pending.popLast() {
            guard visited.insert(reference).inserted else { continue }
            do {
                guard case .search(let page) = try reader.page(reference, .search) else { continue }
                if reference == root, page.kind != .root {
                    throw WebArcError.corruptPage(
                        page: reference.offset, position: 1, reason: "the search root is of kind \(page.kind.rawValue)")
                }
                // Norm pages (kind 7) belong to version 4's index only (spec §17.2).
                if page.kind == .norms, metadata.searchIndexV4 == nil {
                    throw WebArcError.corruptPage(
                        page: reference.offset, position: 1, reason: "a norm page in an index before version 4")
                }
                for child in page.children.reversed() {
                    addExtent(child)
                    pending.append(child)
                }
            } catch {
                add("pages", error)
            }
        }
    }

    private func emptyLeaf(_ reference: PageReference) {
        add(
            "pages",
            WebArcError.corruptPage(page: reference.offset, position: 4, reason: "an empty leaf that is not the root"))
    }
}
