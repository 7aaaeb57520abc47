import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The spec's vectors are the contract: every valid vector reads to its dump, verifies with no
/// problem and (unless crafted) is rebuilt byte for byte from its recipe; every invalid one fails
/// as `expected.json` says (`Spec/vectors/README.md`).
@Suite("Spec vectors")
struct SpecVectorTests {
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Spec/vectors")

    /// Vectors made by hand to look written by a newer or other writer: a 2.0 writer makes a
    /// different file from their recipe.
    static let crafted: Set<String> = [
        "newer-minor", "newer-reserved", "delta-local", "delta-window", "unchecked", "mixed-update",
    ]
    /// Vectors read over bases (layers, spec §13), and their bases, nearest first.
    static let bases: [String: [String]] = [
        "update": ["valid/site.webarc"], "delta": ["valid/delta-base.webarc"],
        "delta-dictionary": ["valid/delta-base.webarc"],
        "delta-raw": ["valid/delta-base.webarc"], "delta-stacked": ["valid/delta.webarc", "valid/delta-base.webarc"],
        "best-delta": ["valid/best.webarc"], "delta-after-raw": ["valid/delta-base.webarc"],
        "mixed-update": ["valid/site.webarc"], "search-update": ["valid/search.webarc"],
        "search-v2-update": ["valid/search-v2.webarc"], "grouped-update": ["valid/grouped.webarc"],
    ]

    /// A reader of a vector file (a path relative to `Spec/vectors`), over its bases (each over the
    /// ones after it, as a layer stack).
    static func open(_ path: String, bases: [String] = []) throws -> ArchiveReader {
        let below = bases.isEmpty ? [] : try stack(bases[0], bases: Array(bases.dropFirst())).layers
        return try ArchiveReader(
            path: vectors.path + "/" + path, bases: Array(below.prefix(1)) + (below.first?.bases ?? []))
    }

    static func stack(_ path: String, bases: [String] = []) throws -> LayerStack {
        try LayerStack(([path] + bases).map { try ArchiveReader(path: vectors.path + "/" + $0) })
    }

    static var validNames: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: vectors.path + "/valid")) ?? []
        return files.filter { $0.hasSuffix(".webarc") }.map { String($0.dropLast(7)) }.sorted()
    }

    /// One entry of `invalid/expected.json`.
    struct Invalid: Sendable, CustomStringConvertible {
        let file: String
        let code: String
        let stage: String
        let offset: UInt64?
        let bases: [String]
        /// `read`: the URL whose body is read through its record.
        var url: String?
        /// `trust`: the public keys trusted, and the files accepted first with the same rollback state.
        var keys: [String] = []
        var acceptFirst: [String] = []
        var description: String { file }
    }

    static var invalidCases: [Invalid] {
        guard let data = FileManager.default.contents(atPath: vectors.path + "/invalid/expected.json"),
            let expected = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]]
        else { return [] }
        return expected.keys.sorted().map {
            let entry = expected[$0]!
            return Invalid(
                file: $0, code: entry["error"] as! String, stage: entry["at"] as! String,
                offset: (entry["offset"] as? NSNumber).map { $0.uint64Value }, bases: entry["bases"] as? [String] ?? [],
                url: entry["url"] as? String, keys: entry["keys"] as? [String] ?? [],
                acceptFirst: entry["acceptFirst"] as? [String] ?? [])
        }
    }

    static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func canonicalJSON(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("the vector set is present")
    func present() {
        #expect(Self.validNames.count >= 15)
        #expect(Self.invalidCases.count >= 50)
    }

    @Test(
        "valid vectors read to their dump and verify with no problem (an update over its base)", arguments: validNames)
    func validReads(name: String) throws {
        let reader = try Self.open("valid/\(name).webarc", bases: Self.bases[name] ?? [])
        try reader.validateBases()
        let expected = try Self.json(Self.vectors.path + "/valid/\(name).json")
        #expect(try Self.canonicalJSON(VectorDump.dump(reader)) == Self.canonicalJSON(expected))
        let report = ArchiveVerifier.verify(reader)
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    /// Vectors whose recipe asks for a full-text index (`writer.search`, spec §17): this module
    /// writes none, so `WebArcSearchTests`' `SearchVectorTests` rebuilds them with the index.
    static var indexed: Set<String> {
        Set(
            validNames.filter { name in
                let recipe = try? json(vectors.path + "/valid/\(name).input.json") as? [String: Any]
                return (recipe?["writer"] as? [String: Any])?["search"] != nil
            })
    }

    @Test(
        "valid vectors are rebuilt byte for byte from their recipe (the archive; an appendix is signing's)",
        arguments: validNames.filter { !crafted.contains($0) && !indexed.contains($0) })
    func validRebuilds(name: String) throws {
        let folder = try TemporaryFolder()
        let recipe = try Self.json(Self.vectors.path + "/valid/\(name).input.json") as! [String: Any]
        let bases = try Self.bases[name].map { try Self.stack($0[0], bases: Array($0.dropFirst())).layers } ?? []
        try VectorDump.build(recipe: recipe, at: folder.file("rebuilt.webarc"), bases: bases)
        let rebuilt = try Data(contentsOf: URL(fileURLWithPath: folder.file("rebuilt.webarc")))
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.vectors.path + "/valid/\(name).webarc"))
        let archiveLength = try ArchiveReader(path: Self.vectors.path + "/valid/\(name).webarc").archiveLength
        #expect(
            firstDifference(rebuilt, original.prefix(Int(archiveLength))) == nil,
            "rebuilt \(rebuilt.count) bytes, vector archive \(archiveLength)")
    }

    @Test(
        "invalid vectors fail where and how expected.json says",
        arguments: invalidCases.filter { $0.stage == "open" || $0.stage == "verify" })
    func invalid(vector: Invalid) throws {
        let path = Self.vectors.path + "/invalid/\(vector.file)"
        if vector.stage == "open" {
            let error = #expect(throws: WebArcError.self, "\(vector.file) opened") { try ArchiveReader(path: path) }
            #expect(error?.code == vector.code, "\(vector.file): \(String(describing: error))")
            #expect(error?.offset == vector.offset, "\(vector.file): \(String(describing: error))")
            return
        }
        let reader = try Self.open("invalid/\(vector.file)", bases: vector.bases)
        let errors = ArchiveVerifier.verify(reader).problems.filter { $0.severity == .error }
        #expect(errors.contains { $0.code == vector.code && $0.offset == vector.offset }, "\(vector.file): \(errors)")
        #expect(errors.allSatisfy { $0.code == vector.code }, "\(vector.file): other codes in \(errors)")
    }

    @Test(
        "an update stacked over archives that are not its bases is refused with bad-base; it verifies over them",
        arguments: invalidCases.filter { $0.stage == "stack" })
    func stackVectors(vector: Invalid) throws {
        let reader = try Self.open("invalid/\(vector.file)", bases: vector.bases)
        #expect(ArchiveVerifier.verify(reader).problems.isEmpty, "\(ArchiveVerifier.verify(reader).problems)")
        let error = #expect(throws: WebArcError.self) { try reader.validateBases() }
        #expect(error?.code == vector.code, "\(String(describing: error))")
    }

    @Test(
        "applying an update vector gives its result byte for byte (spec §13.1)",
        arguments: validNames.filter {
            FileManager.default.fileExists(atPath: vectors.path + "/valid/\($0).stack.json")
        })
    func applies(name: String) throws {
        let stackFile = try Self.json(Self.vectors.path + "/valid/\(name).stack.json") as! [String: Any]
        guard let apply = stackFile["apply"] as? [String: Any] else { return }
        let folder = try TemporaryFolder()
        let stack = try Self.stack("valid/\(name).webarc", bases: Self.bases[name] ?? [])
        try UpdateApplier(stack: stack).write(to: folder.file("applied.webarc"))
        let applied = try Data(contentsOf: URL(fileURLWithPath: folder.file("applied.webarc")))
        let result = try Data(
            contentsOf: URL(fileURLWithPath: Self.vectors.path + "/valid/\(apply["result"] as! String)"))
        #expect(applied == result)
        #expect(
            try Self.hex(ArchiveReader(path: folder.file("applied.webarc")).archiveDigest) == apply["archiveDigest"]
                as? String)
    }

    @Test(
        "the layered view of an update vector lists and looks up as its stack file says",
        arguments: validNames.filter {
            FileManager.default.fileExists(atPath: vectors.path + "/valid/\($0).stack.json")
        })
    func stackListing(name: String) throws {
        let stackFile = try Self.json(Self.vectors.path + "/valid/\(name).stack.json") as! [String: Any]
        let stack = try Self.stack("valid/\(name).webarc", bases: Self.bases[name] ?? [])
        var listing: [[String: Any]] = []
        try stack.forEachKey { key, records in
            // One line per key (spec §13 "Listing"): the first of the deciding layer's records.
            let kind =
                switch records.entries[0].record {
                case .response: "response"
                case .redirect: "redirect"
                case .tombstone: "tombstone"
                }
            listing.append(["key": key, "kind": kind, "layer": records.layer])
        }
        let expectedListing = try Self.canonicalJSON(stackFile["listing"] ?? [])
        #expect(try Self.canonicalJSON(listing) == expectedListing, "\(listing)")
        for case let lookup as [String: Any] in stackFile["lookups"] as? [Any] ?? [] {
            let match = try ReplayLookup.first(
                stack, method: lookup["method"] as! String, url: lookup["url"] as! String)
            #expect((match != nil) == (lookup["found"] as! Bool), "\(lookup)")
            if let match { #expect(match.layer == (lookup["layer"] as? NSNumber)?.intValue, "\(lookup)") }
        }
    }

    @Test(
        "update vectors that must not apply fail as expected.json says, writing nothing",
        arguments: invalidCases.filter { $0.stage == "apply" })
    func applyVectors(vector: Invalid) throws {
        let folder = try TemporaryFolder()
        let stack = try Self.stack("invalid/\(vector.file)", bases: vector.bases)
        let error = #expect(throws: WebArcError.self) {
            try UpdateApplier(stack: stack).write(to: folder.file("out.webarc"))
        }
        #expect(error?.code == vector.code, "\(String(describing: error))")
        #expect(error?.offset == vector.offset, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.webarc")))
    }

    @Test(
        "a body read through its record names the record leaf its entry was copied from (Appendix A)",
        arguments: invalidCases.filter { $0.stage == "read" })
    func readVectors(vector: Invalid) throws {
        let reader = try Self.open("invalid/\(vector.file)", bases: vector.bases)
        guard case .response(let response)? = try reader.lookup(url: try #require(vector.url))?.record else {
            Issue.record("\(vector.file): no response for \(vector.url ?? "")")
            return
        }
        let error = #expect(throws: WebArcError.self) { try reader.body(response.body) }
        #expect(error?.code == vector.code, "\(String(describing: error))")
        #expect(error?.offset == vector.offset, "\(String(describing: error))")
    }

    @Test(
        "trust vectors are refused as expected.json says, after their acceptFirst files, with one rollback state (spec §12.4)",
        arguments: invalidCases.filter { $0.stage == "trust" })
    func trustVectors(vector: Invalid) throws {
        let folder = try TemporaryFolder()
        let keys = try vector.keys.map { try PublicKey(contentsOf: Self.vectors.path + "/" + $0) }
        let policy = TrustPolicy(trusting: keys, rollbackState: try RollbackState(directory: folder.file("state")))
        for first in vector.acceptFirst {
            _ = try ArchiveReader(path: Self.vectors.path + "/invalid/" + first).checkTrust(policy)
        }
        let error = #expect(throws: WebArcError.self) {
            try ArchiveReader(path: Self.vectors.path + "/invalid/\(vector.file)").checkTrust(policy)
        }
        #expect(error?.code == vector.code, "\(String(describing: error))")
        #expect(error?.offset == vector.offset, "\(String(describing: error))")
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test(
        "vectors for trust checks open and verify clean (the trust checks are signing's)",
        arguments: invalidCases.filter { $0.stage == "trust" })
    func trustVectorsAreSound(vector: Invalid) throws {
        let report = ArchiveVerifier.verify(path: Self.vectors.path + "/invalid/\(vector.file)")
        #expect(report.passed, "\(vector.file): \(report.problems)")
    }

    @Test("a lookup skips an entry of an unknown class and answers the next entry with the key (newer-minor)")
    func lookupSkipsUnknownClasses() throws {
        let reader = try Self.open("valid/newer-minor.webarc")
        guard case .response(let response)? = try reader.lookup(url: "https://example.net/notes.txt")?.record else {
            Issue.record("no response for notes.txt")
            return
        }
        #expect(response.request.url == "https://example.net/notes.txt")
        #expect(reader.recordCount == 5)
        var listed = 0
        try reader.forEachEntry { _ in listed += 1 }
        #expect(listed == 3)
    }

    /// The layered lookup of spec §13: the first layer holding the key decides; a tombstone is "not found".
    enum ReplayLookup {
        static func first(_ stack: LayerStack, method: String, url: String) throws -> (layer: Int, entry: ArchiveEntry)?
        {
            for (index, reader) in stack.layers.enumerated() {
                guard let entry = try reader.lookup(method: method, url: url) else { continue }
                return entry.record.isTombstone ? nil : (index, entry)
            }
            return nil
        }
    }

    @Test("canonical URL cases give their key or bad-url")
    func canonicalCases() throws {
        let cases =
            (try Self.json(Self.vectors.path + "/canonical-urls.json") as! [String: Any])["cases"]
            as! [[String: String]]
        #expect(cases.count > 10)
        for entry in cases {
            let method = entry["method"] ?? "GET"
            if let key = entry["key"] {
                #expect(try URLKey.key(method: method, url: entry["url"]!) == key, "\(entry)")
            } else {
                let error = #expect(throws: WebArcError.self, "\(entry)") {
                    try URLKey.key(method: method, url: entry["url"]!)
                }
                #expect(error?.code == "bad-url", "\(entry): \(String(describing: error))")
            }
        }
    }
}
