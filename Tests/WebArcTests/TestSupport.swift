import Foundation
import Testing

@testable import WebArc

/// Writes an archive with the given pages (URL → body) and returns its path.
@discardableResult
func makeArchive(
    at path: String, pages: [(String, [UInt8])], metadata: ArchiveMetadata = ArchiveMetadata()
) throws -> String {
    let writer = try ArchiveWriter(path: path)
    writer.metadata = metadata
    for (url, bytes) in pages {
        let body = try writer.addBody(bytes)
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: url), headers: [HTTPHeader("Content-Type", "text/html")],
                mimeType: "text/html",
                body: body))
    }
    try writer.finish()
    return path
}

/// Where two byte sequences first differ, or nil when they are equal: what a byte-for-byte check
/// of archives reports. `#expect(a == b)` on megabytes would have Swift Testing compute a
/// collection difference on failure, which takes minutes; this takes one pass.
func firstDifference<A: Collection, B: Collection>(_ a: A, _ b: B) -> String?
where A.Element == UInt8, B.Element == UInt8 {
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
