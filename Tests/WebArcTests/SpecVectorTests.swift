import Foundation
import Testing

@testable import WebArc

/// The spec's vectors are the contract: every valid vector reads to its dump, verifies clean and
/// (for 1.0 recipes) is rebuilt byte for byte; every invalid one fails as `expected.json` says.
@Suite("Spec vectors")
struct SpecVectorTests {
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Spec/vectors")

    static var validNames: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: vectors.path + "/valid")) ?? []
        return files.filter { $0.hasSuffix(".webarc") }.map { String($0.dropLast(7)) }.sorted()
    }

    /// Each invalid vector: file name, error code, stage (`open` or `verify`) and the offset named, if listed.
    static var invalidCases: [(String, String, String, UInt64?)] {
        guard let data = FileManager.default.contents(atPath: vectors.path + "/invalid/expected.json"),
            let expected = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]]
        else { return [] }
        return expected.keys.sorted().map {
            let entry = expected[$0]!
            return ($0, entry["error"] as! String, entry["at"] as! String, (entry["offset"] as? Int).map(UInt64.init))
        }
    }

    @Test("the vector set is present")
    func present() {
        #expect(Self.validNames.count >= 8)
        #expect(Self.invalidCases.count >= 20)
    }

    @Test("valid vectors read to their dump and verify clean", arguments: validNames)
    func validReads(name: String) throws {
        let path = Self.vectors.path + "/valid/\(name).webarc"
        let reader = try ArchiveReader(path: path)
        let expected = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: Self.vectors.path + "/valid/\(name).json")))
        #expect(try Self.canonicalJSON(VectorDump.dump(reader)) == Self.canonicalJSON(expected))
        let report = ArchiveVerifier.verify(reader)
        #expect(report.passed, "\(report.problems)")
    }

    @Test("valid 1.0 vectors are rebuilt byte for byte from their recipe", arguments: validNames.filter { !$0.hasPrefix("newer-") })
    func validRebuilds(name: String) throws {
        let folder = try TemporaryFolder()
        let recipe = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: Self.vectors.path + "/valid/\(name).input.json"))) as! [String: Any]
        try VectorDump.build(recipe: recipe, at: folder.file("rebuilt.webarc"))
        let rebuilt = try Data(contentsOf: URL(fileURLWithPath: folder.file("rebuilt.webarc")))
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.vectors.path + "/valid/\(name).webarc"))
        #expect(rebuilt == original, "rebuilt \(rebuilt.count) bytes, vector \(original.count)")
    }

    /// Codes a verification may add beside a vector's own, because they follow from the one change
    /// (vectors README, "Expected errors").
    static let consequentialCodes: Set<String> = ["body-not-found"]

    @Test("invalid vectors fail with the listed error at the listed offset, and nothing unrelated", arguments: invalidCases.map { $0.0 })
    func invalid(file: String) throws {
        let (_, code, stage, offset) = Self.invalidCases.first { $0.0 == file }!
        let path = Self.vectors.path + "/invalid/\(file)"
        if stage == "open" {
            do {
                _ = try ArchiveReader(path: path)
                Issue.record("\(file) opened; expected \(code)")
            } catch let error as WebArcError {
                #expect(error.code == code, "\(file): \(error)")
                if let offset { #expect(error.offset == offset, "\(file): \(error)") }
            }
        } else {
            let reader = try ArchiveReader(path: path)
            let report = ArchiveVerifier.verify(reader)
            let errors = report.problems.filter { $0.severity == .error }
            #expect(!report.passed)
            #expect(errors.contains { $0.code == code && (offset == nil || $0.offset == offset) }, "\(file): \(report.problems)")
            #expect(errors.allSatisfy { $0.code == code || Self.consequentialCodes.contains($0.code) }, "\(file): other codes in \(report.problems)")
        }
    }

    @Test("canonical URL cases give their key or bad-url")
    func canonicalCases() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.vectors.path + "/canonical-urls.json"))
        let cases = (try JSONSerialization.jsonObject(with: data) as! [String: Any])["cases"] as! [[String: String]]
        #expect(cases.count > 10)
        for entry in cases {
            let method = entry["method"] ?? "GET"
            if let key = entry["key"] {
                #expect(try URLKey.key(method: method, url: entry["url"]!) == key, "\(entry)")
            } else {
                let error = #expect(throws: WebArcError.self, "\(entry)") { try URLKey.key(method: method, url: entry["url"]!) }
                #expect(error?.code == "bad-url", "\(entry): \(String(describing: error))")
            }
        }
    }

    static func canonicalJSON(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }
}
