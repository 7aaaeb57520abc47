import Foundation
import Testing

@testable import WebArc

/// A fresh folder under the system temporary directory, removed when the value is dropped.
final class TemporaryFolder: @unchecked Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "webarc-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// SplitMix64: a seeded generator so that random inputs replay.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) } }

    /// Text-like bytes that LZ4 compresses.
    mutating func text(_ count: Int) -> [UInt8] {
        let words = ["archive", "kiosk", "offline", "<p>", "</p>", "body", "chunk", " ", "\n", "webarc", "index"]
        var output: [UInt8] = []
        while output.count < count { output += Array(words[Int.random(in: 0..<words.count, using: &self)].utf8) }
        return Array(output.prefix(count))
    }
}

/// Writes an archive with the given pages (URL → body) and returns its path.
@discardableResult
func makeArchive(at path: String, pages: [(String, [UInt8])], metadata: ArchiveMetadata = ArchiveMetadata()) throws -> String {
    let writer = try ArchiveWriter(path: path)
    writer.metadata = metadata
    for (url, bytes) in pages {
        let body = try writer.addBody(bytes)
        try writer.add(ResponseRecord(
            request: RequestRecord(url: url), headers: [HTTPHeader("Content-Type", "text/html")], mimeType: "text/html",
            body: body))
    }
    try writer.finish()
    return path
}

/// Where two byte sequences first differ, or nil when they are equal: what a byte-for-byte check
/// of archives reports. `#expect(a == b)` on megabytes would have Swift Testing compute a
/// collection difference on failure, which takes minutes; this takes one pass.
func firstDifference<A: Collection, B: Collection>(_ a: A, _ b: B) -> String? where A.Element == UInt8, B.Element == UInt8 {
    var offset = 0
    var left = a.makeIterator()
    var right = b.makeIterator()
    while true {
        switch (left.next(), right.next()) {
        case (nil, nil): return nil
        case let (x?, y?) where x == y: offset += 1
        case let (x, y):
            return "\(a.count) and \(b.count) bytes, first difference at byte \(offset): "
                + "\(x.map { String($0) } ?? "end") against \(y.map { String($0) } ?? "end")"
        }
    }
}
