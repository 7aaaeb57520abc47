/// A page cache key: the full reference (a page is named by its digest, not only its place) and
/// what the page was read as.
struct PageCacheKey: Hashable, Sendable {
    let reference: PageReference
    let expectation: UInt8
}

extension ArchiveReader {
    /// The verified, parsed page `reference` names, from the cache or read now.
    ///
    /// The reference is checked first (tree height, spec §5.1 rules: a child's decode ratio is
    /// found here), then the stored bytes' SHA-256 before they are decoded (spec §5.1, §11.2).
    /// - Throws: `pageDigest`, `corruptPage`, `amplification`, `corruptIndex`, `io`.
    func page(_ reference: PageReference, _ expected: Page.Expectation) throws -> Page {
        let key = PageCacheKey(reference: reference, expectation: expected.cacheTag)
        if let cached = pageCache.withLock({ $0.value(for: key) }) { return cached }
        if case .node = expected, reference.height > FormatBounds.maxTreeHeight {
            throw WebArcError.corruptPage(
                page: reference.offset, position: nil,
                reason: "tree height \(reference.height) is over \(FormatBounds.maxTreeHeight)")
        }
        switch reference.violation(pageArea: pageArea) {
        case .amplification?:
            throw WebArcError.amplification(
                offset: reference.offset, storedLength: reference.storedLength, rawLength: reference.rawLength)
        case .invalid(let reason)?:
            throw WebArcError.corruptPage(page: reference.offset, position: nil, reason: reason)
        case nil:
            break
        }
        let stored = try read(at: reference.offset, count: Int(reference.storedLength))
        let page = try Page(stored: stored, reference: reference, expected: expected, pageArea: pageArea)
        pageCache.withLock { $0.insert(page, for: key, cost: page.cost) }
        return page
    }

    /// The child a descent goes to from entry `index` of an interior page, checked to be one level
    /// below it (spec §8).
    ///
    /// - Throws: `corruptIndex` at the parent page.
    func child(of node: InteriorPage, at index: Int, parent: PageReference) throws -> PageReference {
        let child = node.children[index]
        guard child.height &+ 1 == parent.height else {
            throw WebArcError.corruptIndex(
                page: parent.offset, position: node.childPositions[index],
                reason: "child of height \(child.height) under a page of height \(parent.height)")
        }
        return child
    }

    /// Descends `tree` from its root to the leaf whose range holds `key`, or nil when `key` sorts
    /// before every key of the tree.
    func leaf<K: Collection>(holding key: K, in tree: Page.Tree) throws -> (Page, PageReference)?
    where K.Element == UInt8 {
        var reference = tree == .records ? trailer.recordRoot : trailer.bodyRoot
        while true {
            let node = try page(reference, .node(tree))
            guard case .interior(let interior) = node else { return (node, reference) }
            guard let index = interior.childIndex(for: key) else { return nil }
            reference = try child(of: interior, at: index, parent: reference)
        }
    }

    /// Calls `visit` with every leaf of `tree` in key order (depth first; heights checked on the
    /// way, so the walk ends after at most 9 levels).
    ///
    /// Each interior page's children are announced to the source before they are read
    /// (``ByteSource/willRead(_:)``): a writer stores them side by side, so a remote source fetches
    /// them in a few large requests instead of one per page.
    func forEachLeaf(of tree: Page.Tree, _ visit: (Page, PageReference) throws -> Void) throws {
        func walk(_ reference: PageReference) throws {
            let node = try page(reference, .node(tree))
            guard case .interior(let interior) = node else { return try visit(node, reference) }
            announce(interior.children, tree)
            for index in interior.children.indices { try walk(try child(of: interior, at: index, parent: reference)) }
        }
        try walk(tree == .records ? trailer.recordRoot : trailer.bodyRoot)
    }
}

extension ArchiveReader {
    /// Tells the source which of `pages` (nodes of `tree`) it will be asked for: those neither in
    /// the page cache nor in the tail read at open.
    func announce(_ pages: [PageReference], _ tree: Page.Tree) {
        guard pages.count > 1 else { return }
        let cached = pageCache.withLock { cache in
            Set(
                pages.filter {
                    cache.contains(PageCacheKey(reference: $0, expectation: Page.Expectation.node(tree).cacheTag))
                })
        }
        let extents = pages.compactMap { reference -> Range<UInt64>? in
            guard !cached.contains(reference), reference.offset < tailOffset, let end = reference.end,
                end <= trailerOffset
            else {
                return nil
            }
            return reference.offset..<end
        }
        if extents.count > 1 { source.willRead(extents) }
    }
}

extension Page.Expectation {
    var cacheTag: UInt8 {
        switch self {
        case .metadata: 0
        case .node(let tree): tree.rawValue
        case .search: 5
        }
    }
}
