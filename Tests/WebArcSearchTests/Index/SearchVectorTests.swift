import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcSearch

/// The spec's vectors with a full-text index (`Spec/vectors/README.md`, spec §17), written by the
/// independent Python implementation: this writer makes the same bytes of the same records, this
/// reader finds in them what `NAME.index.json` lists and answers its queries with its ranks and
/// scores, and each broken index is refused as `invalid/expected.json` says.
@Suite("Spec search vectors")
struct SearchVectorTests {
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Spec/vectors")

    /// The valid vectors that come with an `.index.json`.
    static var indexNames: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: vectors.path + "/valid")) ?? []
        return files.filter { $0.hasSuffix(".index.json") }.map { String($0.dropLast(11)) }.sorted()
    }

    /// The invalid vectors whose index pages verify but whose payloads break §17.2 (`at`: `search`).
    static var invalidNames: [String] {
        guard let expected = try? json(vectors.path + "/invalid/expected.json") as? [String: [String: Any]] else {
            return []
        }
        return expected.filter { $0.value["at"] as? String == "search" }.map(\.key).sorted()
    }

    static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The vector's bases, nearest first (an update's `stack.bases`), relative to `Spec/vectors`.
    static func bases(_ name: String) -> [String] {
        let expected = try? json(vectors.path + "/valid/\(name).index.json") as? [String: Any]
        return (expected?["stack"] as? [String: Any])?["bases"] as? [String] ?? []
    }

    /// A reader of the vector (over its bases, each read alone) and its `index.json`.
    static func open(_ name: String) throws -> (ArchiveReader, [String: Any]) {
        let below = try bases(name).map { try ArchiveReader(path: vectors.path + "/" + $0) }
        let reader = try ArchiveReader(path: vectors.path + "/valid/\(name).webarc", bases: below)
        return (reader, try json(vectors.path + "/valid/\(name).index.json") as! [String: Any])
    }

    @Test("the search vectors are present")
    func present() {
        #expect(!Self.indexNames.isEmpty)
        #expect(Self.invalidNames.count >= 5)
    }

    @Test(
        "an index vector is what this writer makes of its records: an indexed copy gives its bytes back",
        arguments: indexNames.filter { bases($0).isEmpty })
    func rebuilds(name: String) throws {
        let folder = try TemporaryFolder()
        let reader = try ArchiveReader(path: Self.vectors.path + "/valid/\(name).webarc")
        // By the vector's rules (1 or 2), as `apply` writes an archive again by its recipe.
        let version = try #require(try reader.metadata.writer?.search)
        _ = try IndexedCopy.write(
            from: reader, to: folder.file("copy.webarc"), builder: SearchIndexBuilder(version: version))
        let copy = try Data(contentsOf: URL(fileURLWithPath: folder.file("copy.webarc")))
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.vectors.path + "/valid/\(name).webarc"))
        #expect(
            copy == original.prefix(Int(reader.archiveLength)), "copy \(copy.count) bytes, vector \(original.count)")
    }

    @Test(
        "the index holds the layout, documents, terms, postings, positions and titles index.json lists",
        arguments: indexNames)
    func contents(name: String) throws {
        let (reader, expected) = try Self.open(name)
        let index = try #require(try IndexView(reader))
        let complete = expected["complete"] as! Bool
        #expect(index.documentCount == (expected["documentCount"] as! NSNumber).intValue)
        #expect(index.root.tokenCount == (expected["tokenCount"] as! NSNumber).uint64Value)
        #expect(try Self.canonical(Self.layout(index)) == Self.canonical(expected["layout"]!))
        let listed = Set((expected["terms"] as! [[String: Any]]).map { $0["term"] as! String })
        var terms: [[String: Any]] = []
        for number in index.root.termKeys.indices {
            let shard = try index.shard(number)
            for entry in shard.entries {
                let term = String(decoding: entry.term, as: UTF8.self)
                guard complete || listed.contains(term) else { continue }
                let postings = try index.postings(shard, entry)
                // Version 2 holds no positions (spec §17.2): its postings list none.
                let positions =
                    index.hasPositions
                    ? try index.positions(shard, entry, postings).map { Optional($0) } : postings.map { _ in nil }
                terms.append([
                    "term": term, "documentFrequency": entry.documentFrequency,
                    "postings": zip(postings, positions).map { posting, positions in
                        var listed: [String: Any] = [
                            "document": posting.document, "frequency": posting.frequency, "inTitle": posting.inTitle,
                            "lengthCode": Int(posting.lengthCode),
                        ]
                        listed["positions"] = positions
                        return listed
                    },
                ])
            }
        }
        #expect(try Self.canonical(terms) == Self.canonical(expected["terms"]!))
        guard complete else { return }
        let documents = try (0..<index.documentCount).map { number -> [String: Any] in
            let document = try index.document(number)
            return ["url": document.url, "title": document.title, "length": document.length]
        }
        #expect(try Self.canonical(documents) == Self.canonical(expected["documents"]!))
        let titles = try index.root.titleKeys.indices.flatMap { number in
            try index.titles(number).map { ["key": String(decoding: $0.key, as: UTF8.self), "document": $0.document] }
        }
        #expect(try Self.canonical(titles) == Self.canonical(expected["titles"]!))
    }

    /// How the index is split into pages: each term shard's first term, term count and stream
    /// pages' payload lengths; each document page's start and count; each title shard's first key
    /// and entry count.
    static func layout(_ index: IndexView) throws -> [String: Any] {
        let payloads = { (pages: ArraySlice<PageReference>) in pages.map { Int($0.rawLength) - SearchPage.headSize } }
        let starts = index.root.documentStarts
        return [
            "termShards": try index.root.termKeys.indices.map { number -> [String: Any] in
                let shard = try index.shard(number)
                return [
                    "firstTerm": String(decoding: index.root.termKeys[number], as: UTF8.self),
                    "terms": shard.entries.count, "postingPages": payloads(shard.postingPages),
                    "positionPages": payloads(shard.positionPages),
                ]
            },
            "documentPages": starts.indices.map { number -> [String: Any] in
                let end = number + 1 < starts.count ? starts[number + 1] : index.documentCount
                return ["start": starts[number], "documents": end - starts[number]]
            },
            "titleShards": try index.root.titleKeys.indices.map { number -> [String: Any] in
                [
                    "firstKey": String(decoding: index.root.titleKeys[number], as: UTF8.self),
                    "entries": try index.titles(number).count,
                ]
            },
        ]
    }

    @Test("queries parse to the clauses index.json gives and rank and score as it says", arguments: indexNames)
    func queries(name: String) throws {
        let (reader, expected) = try Self.open(name)
        for case let query as [String: Any] in expected["queries"] as! [Any] {
            let text = query["text"] as! String
            let parsed = try SearchQuery.parse(text)
            let clauses = parsed.clauses.map { clause -> [Any] in
                switch clause {
                case .word(let term): ["word", term]
                case .phrase(let terms): ["phrase", terms]
                case .prefix(let prefix): ["prefix", prefix]
                }
            }
            #expect(try Self.canonical(clauses) == Self.canonical(query["clauses"]!), "\(text)")
            let results = query["results"] as! [[String: Any]]
            var evaluation = QueryEvaluation(index: try #require(try IndexView(reader)))
            var ranked = try evaluation.run(parsed)
            let matches = ranked.best(ranked.count)
            // Version 2: a phrase's candidates (its terms in the postings), before their text is checked.
            let candidates = query["candidates"] as? [[String: Any]] ?? results
            #expect(
                matches.map(\.document) == candidates.map { ($0["document"] as! NSNumber).intValue }, "\(text)")
            for (match, result) in zip(matches, candidates) {
                let score = (result["score"] as! NSNumber).doubleValue
                #expect(
                    abs(match.score - score) < 1e-8, "\(text): \(match.document) scores \(match.score), not \(score)")
            }
            // An update searches as a stack (`stackQueries`); a whole archive, alone.
            guard reader.bases.isEmpty else { continue }
            let hits = try reader.search(text, limit: 100)
            #expect(hits.map(\.url) == results.map { $0["url"] as! String }, "\(text)")
            for (hit, result) in zip(hits, results) {
                let score = (result["score"] as! NSNumber).doubleValue
                #expect(abs(hit.score - score) < 1e-8, "\(text): \(hit.url) scores \(hit.score), not \(score)")
            }
        }
    }

    @Test(
        "suggestions are the title entries index.json gives, in key order",
        arguments: indexNames.filter { bases($0).isEmpty })
    func suggestions(name: String) throws {
        let (reader, expected) = try Self.open(name)
        for case let entry as [String: Any] in expected["suggestions"] as! [Any] {
            let text = entry["text"] as! String
            #expect(DocumentAnalysis.titleKey(text) == Array((entry["key"] as! String).utf8), "\(text)")
            let results = entry["results"] as! [[String: Any]]
            let found = try reader.suggest(text, limit: 100)
            #expect(found.map(\.url) == results.map { $0["url"] as! String }, "\(text)")
            #expect(found.map(\.title) == results.map { $0["title"] as! String }, "\(text)")
        }
    }

    @Test(
        "a search over an update and its bases answers as the stack section of index.json says (§17.4 Layers)",
        arguments: indexNames.filter { !bases($0).isEmpty })
    func stackQueries(name: String) throws {
        let (reader, expected) = try Self.open(name)
        let stack = try LayerStack([reader] + reader.bases)
        let layered = expected["stack"] as! [String: Any]
        for case let query as [String: Any] in layered["queries"] as! [Any] {
            let text = query["text"] as! String
            let results = query["results"] as! [[String: Any]]
            let hits = try stack.search(text, limit: 100)
            #expect(hits.map(\.url) == results.map { $0["url"] as! String }, "\(text)")
            for (hit, result) in zip(hits, results) {
                let score = (result["score"] as! NSNumber).doubleValue
                #expect(abs(hit.score - score) < 1e-8, "\(text): \(hit.url) scores \(hit.score), not \(score)")
            }
        }
        for case let entry as [String: Any] in layered["suggestions"] as! [Any] {
            let text = entry["text"] as! String
            let results = entry["results"] as! [[String: Any]]
            #expect(try stack.suggest(text, limit: 100).map(\.url) == results.map { $0["url"] as! String }, "\(text)")
        }
    }

    @Test(
        "an index whose pages verify but break a rule of §17.2 is refused where expected.json says",
        arguments: invalidNames)
    func invalid(file: String) throws {
        let entries = try Self.json(Self.vectors.path + "/invalid/expected.json") as! [String: [String: Any]]
        let expected = try #require(entries[file])
        let reader = try ArchiveReader(path: Self.vectors.path + "/invalid/\(file)")
        let report = ArchiveVerifier.verify(reader)
        #expect(report.problems.isEmpty, "\(report.problems)")
        let error = #expect(throws: WebArcError.self) { try Self.readAll(reader) }
        #expect(error?.code == expected["error"] as? String, "\(String(describing: error))")
        #expect(error?.offset == (expected["offset"] as? NSNumber)?.uint64Value, "\(String(describing: error))")
    }

    /// Reads every page of the index: each shard with every term's postings and positions, every
    /// document, every title shard.
    static func readAll(_ reader: ArchiveReader) throws {
        guard let index = try IndexView(reader) else { return }
        for number in index.root.termKeys.indices {
            let shard = try index.shard(number)
            for entry in shard.entries {
                let postings = try index.postings(shard, entry)
                if index.hasPositions { _ = try index.positions(shard, entry, postings) }
            }
        }
        for number in 0..<index.documentCount { _ = try index.document(number) }
        for number in index.root.titleKeys.indices { _ = try index.titles(number) }
    }
}
