import Foundation
import Synchronization
import WebArc

extension ArchiveReader {
    /// Whether the archive holds a full-text index (spec §17).
    public var hasSearchIndex: Bool {
        (try? searchIndexRoot) != nil
    }

    /// The number of pages the archive's full-text index holds, or nil when it has none (reads the
    /// index's root only, which the read at open brought).
    ///
    /// - Throws: page errors when the root is damaged.
    public var searchDocumentCount: Int? {
        get throws { try IndexView(self)?.documentCount }
    }

    /// The pages that match `query`, best first: every word must match, `"phrases"` their words
    /// in order, `pyth*` any term starting so (spec §17.4); BM25 with a title boost; a snippet of
    /// each hit's text.
    ///
    /// - Returns: at most `limit` hits; none when the archive has no index.
    /// - Throws: ``SearchQueryError`` for a query with no word or a lone `*`; page errors
    ///   (`pageDigest`, `corruptPage`) when an index page is damaged.
    public func search(_ query: String, limit: Int = 10) throws -> [SearchHit] {
        try LayerStack([self]).search(query, limit: limit)
    }

    /// Pages whose title starts with `prefix` (folded as titles are), in title order.
    ///
    /// - Throws: page errors when an index page is damaged.
    public func suggest(_ prefix: String, limit: Int = 8) throws -> [Suggestion] {
        try LayerStack([self]).suggest(prefix, limit: limit)
    }
}

extension LayerStack {
    /// Whether any layer holds a full-text index.
    public var hasSearchIndex: Bool { layers.contains { $0.hasSearchIndex } }

    /// ``ArchiveReader/search(_:limit:)`` over the stack as if it were applied: each layer's index
    /// answers for its pages, and a page a layer above holds (changed, deleted or redirected there)
    /// is left out of the layers below.
    public func search(_ query: String, limit: Int = 10) throws -> [SearchHit] {
        try search(query, limit: limit, snippets: true)
    }

    /// ``search(_:limit:)``, with every snippet empty when `snippets` is false (ranking alone, as
    /// `webarc search --bench-queries` times it).
    package func search(_ query: String, limit: Int, snippets makesSnippets: Bool) throws -> [SearchHit] {
        let parsed = try SearchQuery.parse(query)
        guard limit > 0 else { return [] }
        var ranked: [(score: Double, layer: Int, document: Int, url: String, title: String, terms: Set<String>)] = []
        for (number, layer) in layers.enumerated() {
            guard let index = try IndexView(layer) else { continue }
            var evaluation = QueryEvaluation(index: index)
            // The top layer shadows none of its documents, so it needs its first `limit` matches
            // alone, or (phrases checked in the text) its first budget of them; a lower layer may
            // skip any number of shadowed ones.
            let checksText = parsed.clauses.contains {
                if case .phrase(let terms) = $0 { terms.count > 1 } else { false }
            }
            var matches = try evaluation.run(
                parsed, top: number > 0 ? nil : checksText ? PhraseCheck.candidateBudget(limit: limit) : limit)
            index.willReadDocuments(matches.best(limit).map(\.document))
            // Phrases an index without positions matched by their terms: candidates in rank order
            // until `limit` show them in their text, at most a budget of them read (spec §17.4).
            let phrases = evaluation.phrasesToCheck
            var budget = PhraseCheck.candidateBudget(limit: limit)
            var kept = 0
            // Candidates waiting for their phrase check, made a batch at a time on every core; a
            // batch may check a few past the `limit`-th hit, whose answers are then not used.
            var pending: [(document: Int, score: Double, entry: DocumentEntry)] = []
            func keep(_ document: Int, _ score: Double, _ entry: DocumentEntry) {
                ranked.append((score, number, document, entry.url, entry.title, evaluation.terms(of: document)))
                kept += 1
            }
            // A batch of phrase checks: a few per core, or as many reads as a remote source keeps
            // in flight; twice as many after a batch where no page showed the phrases (up to four
            // times), so that the cores of a long, fruitless search wait on each other less often.
            let phraseBatch = max(Self.phraseBatch, layer.byteSource.concurrentReads)
            var batch = phraseBatch
            func checkPending() throws {
                let shows = try showsPhrases(phrases, pending.map(\.entry.url), in: layer)
                for (candidate, holds) in zip(pending, shows) where kept < limit && holds {
                    keep(candidate.document, candidate.score, candidate.entry)
                }
                if !shows.contains(true) { batch = min(2 * batch, 4 * phraseBatch) }
                pending = []
            }
            if layer.byteSource.concurrentReads > Self.phraseBatch {
                // Over the network, the first hits' document pages are fetched at once rather
                // than one round trip after another; the loop below then reads them from the cache.
                var wanted: [Int] = []
                while wanted.count < limit, let match = matches.match(at: wanted.count) {
                    wanted.append(match.document)
                }
                let documents = wanted
                ConcurrentReads.forEach(documents.count, width: layer.byteSource.concurrentReads) { number in
                    _ = try? index.document(documents[number])
                }
            }
            var position = 0
            // Candidates up to here have their document pages read: a batch's are read on every
            // core at once, ahead of the batch, rather than one after another.
            var readAhead = 0
            while kept < limit, let match = matches.match(at: position) {
                if !phrases.isEmpty, position >= readAhead {
                    var next: [Int] = []
                    while next.count < min(batch, budget), let ahead = matches.match(at: position + next.count) {
                        next.append(ahead.document)
                    }
                    index.willReadDocuments(next)
                    readAhead = position + next.count
                }
                position += 1
                let document = try index.document(match.document)
                if try isShadowed(document.url, below: number) { continue }
                guard !phrases.isEmpty else {
                    keep(match.document, match.score, document)
                    continue
                }
                guard budget > 0 else { break }
                budget -= 1
                pending.append((match.document, match.score, document))
                if pending.count >= min(batch, limit - kept) { try checkPending() }
            }
            if !pending.isEmpty { try checkPending() }
        }
        ranked.sort { ($0.score, -$0.layer, -$0.document) > ($1.score, -$1.layer, -$1.document) }
        let shown = Array(ranked.prefix(limit))
        // A snippet reads its page's body and analyses the start of its text: the hits' snippets
        // are made on every core at once, the first error in rank order thrown.
        let snippets = Mutex<[Result<String, any Error>?]>(Array(repeating: nil, count: shown.count))
        let width = layers.map(\.byteSource.concurrentReads).max() ?? 1
        ConcurrentReads.forEach(makesSnippets ? shown.count : 0, width: width) { number in
            let hit = shown[number]
            let made = Result { try snippet(hit.url, in: layers[hit.layer], terms: hit.terms) }
            snippets.withLock { $0[number] = made }
        }
        let made = snippets.withLock { $0 }
        return try shown.enumerated().map { number, hit in
            SearchHit(
                url: hit.url, title: hit.title.isEmpty ? hit.url : hit.title, snippet: try made[number]?.get() ?? "",
                score: hit.score)
        }
    }

    /// ``ArchiveReader/suggest(_:limit:)`` over the stack as if it were applied.
    public func suggest(_ prefix: String, limit: Int = 8) throws -> [Suggestion] {
        let wanted = DocumentAnalysis.titleKey(prefix)
        guard !wanted.isEmpty, limit > 0 else { return [] }
        var found: [(key: [UInt8], layer: Int, document: Int, suggestion: Suggestion)] = []
        for (number, layer) in layers.enumerated() {
            guard let index = try IndexView(layer) else { continue }
            var shard = IndexRoot.shard(for: wanted, in: index.root.titleKeys) ?? 0
            var kept = 0
            scan: while shard < index.root.titleKeys.count, kept < limit {
                let entries = try index.titles(shard)
                // The first key not before `wanted`: keys are in byte order within a shard.
                var position = 0
                var end = entries.count
                while position < end {
                    let middle = (position + end) / 2
                    if entries[middle].key.lexicographicallyPrecedes(wanted) {
                        position = middle + 1
                    } else {
                        end = middle
                    }
                }
                while position < entries.count {
                    let entry = entries[position]
                    guard entry.key.starts(with: wanted) else { break scan }
                    let document = try index.document(entry.document)
                    if try !isShadowed(document.url, below: number) {
                        found.append(
                            (entry.key, number, entry.document, Suggestion(title: document.title, url: document.url)))
                        kept += 1
                        if kept == limit { break scan }
                    }
                    position += 1
                }
                shard += 1
            }
        }
        found.sort {
            $0.key != $1.key
                ? $0.key.lexicographicallyPrecedes($1.key) : ($0.layer, $0.document) < ($1.layer, $1.document)
        }
        return found.prefix(limit).map(\.suggestion)
    }

    /// Whether a layer above `layer` holds a record for `url` (so the stack answers from there).
    private func isShadowed(_ url: String, below layer: Int) throws -> Bool {
        for upper in layers[..<layer] where try upper.lookup(url: url) != nil { return true }
        return false
    }

    /// Phrase checks made at once from a local file, at most (a few per core).
    private static let phraseBatch = 2 * ProcessInfo.processInfo.activeProcessorCount

    /// Whether each page of `urls` in `reader` shows every phrase (``PhraseCheck``), checked on
    /// every core at once; the first error in `urls` order is thrown.
    private func showsPhrases(_ phrases: [[String]], _ urls: [String], in reader: ArchiveReader) throws -> [Bool] {
        let results = Mutex<[Result<Bool, any Error>?]>(Array(repeating: nil, count: urls.count))
        ConcurrentReads.forEach(urls.count, width: reader.byteSource.concurrentReads) { number in
            let result = Result {
                try shows(phrases, urls[number], in: reader)
            }
            results.withLock { $0[number] = result }
        }
        return try results.withLock { $0 }.map { try $0!.get() }
    }

    /// Whether the page at `url` in `reader` shows every phrase in its title or visible text, as
    /// the index read them (spec §17.1); an HTML page is read in parts, only until the phrases
    /// are found (``PhraseScan``). False when it is not a response.
    private func shows(_ phrases: [[String]], _ url: String, in reader: ArchiveReader) throws -> Bool {
        guard case .response(let response)? = try reader.lookup(url: url)?.record else { return false }
        var chunks = try reader.makeChunkIterator(for: response.body)
        guard response.mimeType == "text/plain" else {
            return try PhraseScan.holds(phrases, htmlParts: { try chunks.next() }, charset: response.textEncoding)
        }
        var body: [UInt8] = []
        while let chunk = try chunks.next() { body += chunk }
        return PhraseCheck.holds(phrases, in: VisibleText.of(plain: body, charset: response.textEncoding))
    }

    /// A snippet of the page at `url` in `reader` around `terms` (those the page holds); empty when
    /// its body is not text.
    private func snippet(_ url: String, in reader: ArchiveReader, terms: Set<String>) throws -> String {
        guard case .response(let response)? = try reader.lookup(url: url)?.record else { return "" }
        // Each chunk checked against its digest as it is read, and read only when the snippet
        // needs it; the whole body's MD5 and SHA-256 are left to the reads that serve the page.
        var chunks = try reader.makeChunkIterator(for: response.body)
        guard response.mimeType == "text/plain" else {
            return try Snippet.make(htmlParts: { try chunks.next() }, charset: response.textEncoding, terms: terms)
        }
        var body: [UInt8] = []
        while let chunk = try chunks.next() { body += chunk }
        return Snippet.make(terms: terms) { VisibleText.of(plain: body, charset: response.textEncoding, limit: $0) }
    }
}
