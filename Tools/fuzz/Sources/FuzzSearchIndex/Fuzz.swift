// The search index's pages (spec §17.2), decoded, in an archive built around them: an empty record
// tree, an empty body tree and a metadata page whose `search` (the root's version 1), `searchIndex3`
// (version 3, format 2.5), `searchIndex4` (version 4, format 2.6: Rice-coded postings, norm pages)
// or `searchIndex` (any other version: 2, format 2.3) names the first page, with every
// digest and reference recomputed (PageArchive), so that mutations reach the payload decoders of
// the root, term shards, postings (block-coded ones too), positions, document pages and title shards of every version
// through the reader's public search and suggestions.
//
// Input: pieces separated by PageArchive.separator: the queries (one a line, at most 8; none: two
// defaults), then the search pages, the root first. A search page's child references carry the
// index of the child's piece (1 is the root) in their `offset` field.
// `WEBARC_FUZZ_WRAPPED=FILE` writes the archive of the last input to FILE (for `webarc search`).
import Foundation
import FuzzSupport
import WebArc
import WebArcSearch

let wrappedPath = ProcessInfo.processInfo.environment["WEBARC_FUZZ_WRAPPED"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearchIndex(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let pieces = PageArchive.split(Array(UnsafeBufferPointer(start: data, count: size)))
    var queries = String(decoding: pieces[0], as: UTF8.self).split(separator: "\n").prefix(8).map(String.init)
    if queries.isEmpty { queries = ["a", "ab*"] }
    let archive = PageArchive.wrap(pieces: SearchFrame.pieces(searchPages: Array(pieces.dropFirst())))
    if let wrappedPath { _ = FileManager.default.createFile(atPath: wrappedPath, contents: Data(archive)) }
    guard let reader = try? ArchiveReader(source: DataByteSource(Data(archive)), path: "fuzz.webarc") else {
        return 0
    }
    for query in queries {
        if let hits = try? reader.search(query, limit: 20) {
            precondition(hits.count <= 20, "\(hits.count) hits for a limit of 20")
            precondition(hits.allSatisfy { $0.score.isFinite && $0.score >= 0 }, "a score not finite")
            precondition(zip(hits, hits.dropFirst()).allSatisfy { $0.score >= $1.score }, "hits out of order")
        }
        if let suggestions = try? reader.suggest(query, limit: 8) {
            precondition(suggestions.count <= 8, "\(suggestions.count) suggestions for a limit of 8")
        }
    }
    _ = ArchiveVerifier.verify(reader)
    return 0
}

/// The pages around the search pages, as PageArchive reads them.
enum SearchFrame {
    /// Pieces before the search pages in PageArchive's input: header, body data, metadata, roots.
    static let framePieces = 4

    /// PageArchive's pieces: a header (minor version 2 and optional feature bit 0 for a root of
    /// version 1, 5 and bit 2 for version 3, 6 and bit 3 for version 4, else 3 and bit 1), no body
    /// data, the metadata page, an
    /// empty record root and body root, then `searchPages` with their child references' piece
    /// numbers moved past the frame.
    static func pieces(searchPages: [[UInt8]]) -> [[UInt8]] {
        let version = searchPages.first.map(rootVersion) ?? 1
        var header = [UInt8](repeating: 0, count: 16)
        header[1] = version == 1 ? 2 : version == 3 ? 5 : version == 4 ? 6 : 3
        header[12] = version == 1 ? 1 : version == 3 ? 4 : version == 4 ? 8 : 2
        let recordRoot: [UInt8] = [2, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        let bodyRoot: [UInt8] = [3, 0, 0, 0, 0, 0, 0, 0]
        let key =
            version == 1 ? "search" : version == 3 ? "searchIndex3" : version == 4 ? "searchIndex4" : "searchIndex"
        return [header, [], metadata(key: key), recordRoot, bodyRoot] + searchPages.map(renumbered)
    }

    /// The first byte of a root page's payload (the byte after its child references): its version
    /// when under 128; 1 for a page too short to hold one.
    static func rootVersion(_ root: [UInt8]) -> UInt8 {
        guard root.count >= 8 else { return 1 }
        let count = Int(root[4]) | Int(root[5]) << 8 | Int(root[6]) << 16 | Int(root[7]) << 24
        let at = 8 + 56 * min(count, 1 << 16)
        return at >= root.count ? 1 : root[at]
    }

    /// A metadata page whose `Archive` object holds only `key`, naming piece 5 (the first search page).
    static func metadata(key: String) -> [UInt8] {
        var object: [UInt8] = []
        append(7, to: &object)
        object += Array("Archive".utf8)
        append(1, to: &object)
        append(UInt32(key.utf8.count), to: &object)
        object += Array(key.utf8)
        object.append(6)
        append(56, to: &object)
        object += [UInt8(framePieces + 1)] + [UInt8](repeating: 0, count: 55)
        var page: [UInt8] = [4, 0, 0, 0]
        append(UInt32(object.count), to: &page)
        return page + object
    }

    /// A search page whose child references' `offset` fields, piece numbers of the input, are
    /// moved by the frame's pieces.
    static func renumbered(_ page: [UInt8]) -> [UInt8] {
        guard page.count >= 8, page[0] == 5 else { return page }
        var page = page
        let count = Int(page[4]) | Int(page[5]) << 8 | Int(page[6]) << 16 | Int(page[7]) << 24
        var position = 8
        while position < 8 + 56 * min(count, 1 << 16), position + 56 <= page.count {
            // Adding to the low byte with its carry is adding to the little-endian u64.
            var carry = framePieces
            for at in position..<position + 8 where carry > 0 {
                let sum = Int(page[at]) + carry
                page[at] = UInt8(truncatingIfNeeded: sum)
                carry = sum >> 8
            }
            position += 56
        }
        return page
    }

    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(shift)))) }
    }
}
