/// How many bytes each of a reader's caches may hold: one budget shared out among them.
///
/// Every cache counts what it holds in accounted bytes (the decoded bytes plus a fixed overhead
/// per entry) and evicts its least recently used entries to stay within its share, so the
/// caches of a reader together never account for more than ``total``. A server that gives each
/// reader a part of its own memory budget passes it to ``ArchiveReader/limitCaches(_:)``.
public struct ReaderCacheLimits: Equatable, Sendable {
    /// Verified, parsed pages: tree nodes (a cold lookup's record leaf), the metadata, search pages.
    public var pages: Int
    /// Body entries of records just looked up, so that a body streams right after its lookup.
    public var bodyEntries: Int
    /// Verified codec-2 dictionaries (up to the last 64 KiB of a chunk each).
    public var dictionaries: Int
    /// Verified codec-3 references (whole decoded chunks).
    public var references: Int
    /// Verified group chunks (spec §6.3 slices), decoded whole: up to 2 MiB each.
    public var groups: Int

    /// The limits of a reader just opened: 32 MiB of pages, 16 MiB of body entries, 1 MiB of
    /// dictionaries, 2 MiB of references, 8 MiB of groups.
    public static let standard = ReaderCacheLimits(
        pages: 32 << 20, bodyEntries: 16 << 20, dictionaries: 1 << 20, references: 2 << 20, groups: 8 << 20)

    /// Makes limits from each cache's bytes.
    public init(pages: Int, bodyEntries: Int, dictionaries: Int, references: Int, groups: Int) {
        self.pages = pages
        self.bodyEntries = bodyEntries
        self.dictionaries = dictionaries
        self.references = references
        self.groups = groups
    }

    /// `bytes` shared out: half for pages (a random lookup's record leaf is the costliest read to
    /// repeat), an eighth each for dictionaries, groups and body entries, the rest for references.
    /// An archive without groups (or dictionaries) leaves that share empty.
    public init(sharing bytes: Int) {
        let bytes = max(0, bytes)
        pages = bytes / 2
        dictionaries = bytes / 8
        groups = bytes / 8
        bodyEntries = bytes / 8
        references = bytes - pages - dictionaries - groups - bodyEntries
    }

    /// The bytes of every cache together.
    public var total: Int { pages + bodyEntries + dictionaries + references + groups }
}

/// What a reader's caches hold now, in accounted bytes, by cache.
package struct ReaderCacheUsage: Equatable, Sendable {
    /// Accounted bytes held by each cache.
    package var pages = 0, bodyEntries = 0, dictionaries = 0, references = 0, groups = 0
    /// Entries held by each cache.
    package var pageCount = 0, bodyEntryCount = 0, dictionaryCount = 0, referenceCount = 0, groupCount = 0

    /// Accounted bytes of every cache together.
    package var total: Int { pages + bodyEntries + dictionaries + references + groups }
}

extension ArchiveReader {
    /// The decoded-page cache's budget of a reader just opened.
    public static let defaultPageCacheBytes = ReaderCacheLimits.standard.pages

    /// Accounted bytes of one cached dictionary or reference beyond its bytes (the array and the
    /// cache's entry for it).
    static let decodedChunkOverhead = 128

    /// Bounds every cache of the reader by `limits`, dropping what they hold: a server gives its
    /// readers a share of its own memory budget (``ReaderCacheLimits/init(sharing:)``).
    public func limitCaches(_ limits: ReaderCacheLimits) {
        limitPageCache(bytes: limits.pages, atLeast: 0)
        // A copied body entry of one chunk and its dictionary reference accounts for 180 bytes.
        bodyCache.withLock { $0 = LRUCache(maxCount: max(1, limits.bodyEntries / 128), maxCost: limits.bodyEntries) }
        dictionaryCache.withLock {
            $0 = LRUCache(maxCount: max(1, limits.dictionaries / 1024), maxCost: limits.dictionaries)
        }
        referenceCache.withLock {
            $0 = LRUCache(maxCount: max(1, limits.references / 1024), maxCost: limits.references)
        }
        groupCache.withLock { $0 = LRUCache(maxCount: max(1, limits.groups / 4096), maxCost: limits.groups) }
    }

    /// Bounds the cache of verified, decoded pages to about `bytes` (at least 256 KiB), dropping
    /// what it holds; the other caches keep their limits.
    public func limitPageCache(bytes: Int) {
        limitPageCache(bytes: bytes, atLeast: 256 << 10)
    }

    private func limitPageCache(bytes: Int, atLeast floor: Int) {
        let bytes = max(bytes, floor)
        // A record leaf decodes to at most 64 KiB plus its entries' positions; one page in 16 KiB
        // of budget leaves room for small interior and metadata pages too.
        pageCache.withLock { $0 = LRUCache(maxCount: max(16, bytes / (16 << 10)), maxCost: bytes) }
    }

    /// What the decoded-page cache holds now: pages, their accounted bytes, and its byte budget.
    package var pageCacheUsage: (pages: Int, bytes: Int, limit: Int) {
        pageCache.withLock { ($0.count, $0.totalCost, $0.maxCost) }
    }

    /// What every cache of the reader holds now.
    package var cacheUsage: ReaderCacheUsage {
        var usage = ReaderCacheUsage()
        (usage.pages, usage.pageCount) = pageCache.withLock { ($0.totalCost, $0.count) }
        (usage.bodyEntries, usage.bodyEntryCount) = bodyCache.withLock { ($0.totalCost, $0.count) }
        (usage.dictionaries, usage.dictionaryCount) = dictionaryCache.withLock { ($0.totalCost, $0.count) }
        (usage.references, usage.referenceCount) = referenceCache.withLock { ($0.totalCost, $0.count) }
        (usage.groups, usage.groupCount) = groupCache.withLock { ($0.totalCost, $0.count) }
        return usage
    }

    /// The limits every cache of the reader has now.
    public var cacheLimits: ReaderCacheLimits {
        ReaderCacheLimits(
            pages: pageCache.withLock { $0.maxCost }, bodyEntries: bodyCache.withLock { $0.maxCost },
            dictionaries: dictionaryCache.withLock { $0.maxCost }, references: referenceCache.withLock { $0.maxCost },
            groups: groupCache.withLock { $0.maxCost })
    }
}
