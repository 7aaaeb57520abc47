extension ArchiveReader {
    /// The root page of the archive's full-text index and the index version its metadata key
    /// names (spec §17: `search` 1, `searchIndex` 2, `searchIndex3` 3, `searchIndex4` 4), or nil
    /// when it has none.
    ///
    /// - Throws: `pageDigest`, `corruptPage`, `corruptIndex` from the metadata page; `corruptIndex`
    ///   when it names both.
    package var searchIndexRoot: (reference: PageReference, version: UInt64)? {
        get throws {
            let metadata = try metadata
            let roots = [
                (metadata.searchIndex, 1), (metadata.searchIndexV2, 2), (metadata.searchIndexV3, 3),
                (metadata.searchIndexV4, 4),
            ]
            .compactMap { root, version in root.map { ($0, UInt64(version)) } }
            guard roots.count <= 1 else {
                throw WebArcError.corruptIndex(
                    page: trailer.metadata.offset, position: nil,
                    reason: "more than one of search, searchIndex, searchIndex3, searchIndex4")
            }
            return roots.first
        }
    }

    /// The verified, parsed search page `reference` names, from the cache or read now (spec §5.1,
    /// §17): digest checked before decoding, the head and child references parsed.
    ///
    /// - Throws: `pageDigest`, `corruptPage`, `amplification`, `io`.
    package func searchPage(_ reference: PageReference) throws -> SearchPage {
        guard case .search(let page) = try page(reference, .search) else {
            throw WebArcError.corruptPage(page: reference.offset, position: 0, reason: "not a search page")
        }
        return page
    }

    /// Tells the source that `pages` (search pages) will be read next, so that a remote source
    /// fetches them together instead of one request each.
    ///
    /// - Returns: how many of `pages` the page cache does not hold.
    @discardableResult
    package func willReadSearchPages(_ pages: [PageReference]) -> Int {
        guard pages.count > 1 else { return pages.count }
        var uncached = 0
        let extents = pages.compactMap { reference -> Range<UInt64>? in
            let cached = pageCache.withLock {
                $0.contains(PageCacheKey(reference: reference, expectation: Page.Expectation.search.cacheTag))
            }
            if !cached { uncached += 1 }
            guard !cached, reference.offset < tailOffset, let end = reference.end, end <= trailerOffset else {
                return nil
            }
            return reference.offset..<end
        }
        // Apart in the index, so several requests in flight at once: one round trip for them all.
        if extents.count > 1 { source.willRead(extents.sorted { $0.lowerBound < $1.lowerBound }, ahead: 8) }
        return uncached
    }
}
