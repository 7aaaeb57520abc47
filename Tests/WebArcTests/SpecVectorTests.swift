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

    static var invalidCases: [(String, String, String)] {
        guard let data = FileManager.default.contents(atPath: vectors.path + "/invalid/expected.json"),
            let expected = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]]
        else { return [] }
        return expected.keys.sorted().map { ($0, expected[$0]!["error"] as! String, expected[$0]!["at"] as! String) }
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

    @Test("invalid vectors fail with the listed error where listed", arguments: invalidCases.map { $0.0 })
    func invalid(file: String) throws {
        let (_, code, stage) = Self.invalidCases.first { $0.0 == file }!
        let path = Self.vectors.path + "/invalid/\(file)"
        if stage == "open" {
            do {
                _ = try ArchiveReader(path: path)
                Issue.record("\(file) opened; expected \(code)")
            } catch let error as WebArcError {
                #expect(error.code == code, "\(file): \(error)")
            }
        } else {
            let reader = try ArchiveReader(path: path)
            let report = ArchiveVerifier.verify(reader)
            #expect(!report.passed)
            #expect(report.problems.contains { $0.code == code && $0.severity == .error }, "\(file): \(report.problems)")
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
                #expect(throws: WebArcError.self, "\(entry)") { try URLKey.key(method: method, url: entry["url"]!) }
            }
        }
    }

    static func canonicalJSON(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }
}
