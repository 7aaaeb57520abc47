import Foundation
import Testing

@testable import WebArcSearch

/// Porter2 against Snowball's own stemmer: the committed sample (Fixtures/porter2-sample.tsv,
/// made by Tools/porter2-check.sh --write-sample) always, and the full word list of the Python
/// docs when Tools/porter2-check.sh passes it in `PORTER2_WORDS`.
@Suite struct TextPorter2Tests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The `word<TAB>stem` lines of a file, comments left out.
    static func pairs(at url: URL) throws -> [(String, String)] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2 else { return nil }
            return (String(fields[0]), String(fields[1]))
        }
    }

    /// The pairs whose stem differs from ours.
    static func mismatches(_ pairs: [(String, String)]) -> [String] {
        pairs.compactMap { word, expected in
            let stem = Porter2.stem(word)
            return stem == expected ? nil : "\(word): \(stem), expected \(expected)"
        }
    }

    @Test func committedSampleAgreesWithSnowball() throws {
        let pairs = try Self.pairs(at: Self.fixtures.appendingPathComponent("porter2-sample.tsv"))
        #expect(pairs.count > 2000)
        let mismatches = Self.mismatches(pairs)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(pairs.count): \(mismatches.prefix(20))")
    }

    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["PORTER2_WORDS"] != nil, "Tools/porter2-check.sh sets PORTER2_WORDS"
        ))
    func everyWordOfTheListAgrees() throws {
        let path = try #require(ProcessInfo.processInfo.environment["PORTER2_WORDS"])
        let pairs = try Self.pairs(at: URL(fileURLWithPath: path))
        let mismatches = Self.mismatches(pairs)
        print("porter2: \(pairs.count - mismatches.count) of \(pairs.count) words agree")
        for mismatch in mismatches.prefix(30) { print("porter2 mismatch: \(mismatch)") }
        #expect(mismatches.isEmpty)
    }

    @Test(arguments: [
        ("running", "run"), ("connections", "connect"), ("generously", "generous"), ("dying", "die"),
        ("skies", "sky"), ("news", "news"), ("proceed", "proceed"), ("hoped", "hope"), ("hopping", "hop"),
        ("caresses", "caress"), ("ties", "tie"), ("cries", "cri"), ("gas", "gas"), ("gaps", "gap"),
        ("youth's", "youth"), ("sayyid", "sayyid"), ("cry", "cri"), ("by", "by"), ("communism", "communism"),
        ("happily", "happili"),
    ])
    func knownStems(word: String, stem: String) {
        #expect(Porter2.stem(word) == stem)
    }

    @Test func wordsItDoesNotStemComeBackUnchanged() {
        #expect(Porter2.stem("Running") == "Running")
        #expect(Porter2.stem("café") == "café")
        #expect(Porter2.stem("ab") == "ab")
        #expect(Porter2.stem("") == "")
        #expect(Porter2.stem("x11") == "x11")
    }
}
