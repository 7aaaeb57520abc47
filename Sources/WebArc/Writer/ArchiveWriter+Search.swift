import Foundation
import Synchronization

extension ArchiveWriter {
    /// Offers the index every response a lookup finds (the first record of its key in tree order,
    /// when that is a response), in tree order, each body once, reading each wanted body back; writes the index's
    /// pages but its root, and returns the root's decoded bytes (spec §17.1). Records stream from
    /// their sorted runs and bodies are read a batch at a time, so memory does not grow with them.
    func writeSearchPages(_ index: any SearchIndexContributor, sorted: SortedRecords) throws -> [UInt8] {
        var sorted = sorted
        var previousKey: [UInt8]?
        // Each batch of bodies is analysed on every core in the background while this thread reads
        // the next batch's bodies and adds the previous batch's analyses, in order.
        let batchBytes = 16 << 20
        var batch: [(IndexableResponse, [UInt8])] = []
        // Each document of the batch in order: an analysis taken from a base's index, or nil for
        // the next one of `batch` (analysed here).
        var documents: [(any Sendable)?] = []
        // A body is one document however many URLs answer with it (`dir/` and `dir/index.html`):
        // a bit a stored body, by its place in reference order, marks those indexed.
        var indexedBodies = [UInt64](repeating: 0, count: (bodies.count + 63) / 64)
        var bytes = 0
        var inFlight: BatchAnalysis?
        func addAnalysed() throws {
            guard let analysed = inFlight else { return }
            inFlight = nil
            var analyses = analysed.wait().makeIterator()
            for document in analysed.documents { try index.add(document ?? analyses.next()!) }
        }
        func analyzeBatch() throws {
            nonisolated(unsafe) let analyzer = index
            let started = BatchAnalysis(batch, documents: documents) { analyzer.analyze($0, body: $1) }
            batch = []
            documents = []
            bytes = 0
            try addAnalysed()
            inFlight = started
        }
        while let record = try sorted.next() {
            defer { previousKey = record.key }
            guard record.key != previousKey, let response = record.response, let reference = record.body,
                let entry = storedBody(reference)
            else { continue }
            let offered = IndexableResponse(
                url: record.url, status: response.status, mediaType: response.mediaType,
                charset: response.charset, length: entry.length)
            guard index.wants(offered), let place = try bodies.sortedIndex(of: reference),
                indexedBodies[place >> 6] & (1 << UInt64(place & 63)) == 0
            else { continue }
            indexedBodies[place >> 6] |= 1 << UInt64(place & 63)
            // A body a base's index already analysed at this key is not read back.
            if let reused = index.analysis(reusing: offered, key: record.key, body: reference.digest) {
                documents.append(reused)
                if documents.count >= 4096 { try analyzeBatch() }
                continue
            }
            let body = try readStoredBody(entry)
            bytes += body.count
            batch.append((offered, body))
            documents.append(nil)
            if bytes >= batchBytes || batch.count >= 256 { try analyzeBatch() }
        }
        if !documents.isEmpty { try analyzeBatch() }
        try addAnalysed()
        return try index.writePages { raw in
            SearchPageAddress(try storePage(raw, height: 0))
        }
    }
}

/// A batch of bodies the search index analyses on every core in the background (Dispatch's
/// pool), and the batch's documents in order: an analysis taken from a base's index, or nil for
/// the next body's.
private final class BatchAnalysis: Sendable {
    let documents: [(any Sendable)?]
    private let group = DispatchGroup()
    private let results: Mutex<[(any Sendable)?]>

    init(
        _ items: [(IndexableResponse, [UInt8])], documents: [(any Sendable)?],
        analyze: @escaping @Sendable (IndexableResponse, [UInt8]) -> any Sendable
    ) {
        self.documents = documents
        results = Mutex(Array(repeating: nil, count: items.count))
        DispatchQueue.global().async(group: group) { [self] in
            DispatchQueue.concurrentPerform(iterations: items.count) { number in
                let result = analyze(items[number].0, items[number].1)
                self.results.withLock { $0[number] = result }
            }
        }
    }

    /// The analyses of the bodies in order, once every one is done.
    func wait() -> [any Sendable] {
        group.wait()
        return results.withLock { $0.map { $0! } }
    }
}
