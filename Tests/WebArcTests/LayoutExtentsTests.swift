import Testing

@testable import WebArc

/// Which chunk extents the verifier's `layout` check tiles (spec §3, §11.3).
@Suite struct LayoutExtentsTests {
    private let digest = SHA256Hash.of(Array("x".utf8))

    private func body(_ chunk: ChunkEntry) -> BodyEntry {
        BodyEntry(reference: BodyReference(digest: BodyDigest.ofEmpty), length: 9, sha256: digest, chunks: [chunk])
    }

    /// The extents collected, in order, as (offset, end, kind: 0 chunk, 1 dictionary).
    private func extents(_ found: FoundInBodies) throws -> [[UInt64]] {
        var sorted = try found.extents.sorted()
        var all: [[UInt64]] = []
        while let extent = try sorted.next() { all.append([extent.offset, extent.end, UInt64(extent.kind.rawValue)]) }
        return all
    }

    @Test("a dictionary reference inside body data is a layout extent")
    func referenceInside() throws {
        let dictionary = ChunkEntry(offset: 16, storedLength: 5, rawLength: 9, codec: .lz4, digest: digest)
        let chunk = ChunkEntry(
            offset: 21, storedLength: 5, rawLength: 9, codec: .lz4Dictionary, digest: digest, dictionary: dictionary)
        let found = FoundInBodies()
        found.collectExtents(body(chunk), bodyDataEnd: 26)
        #expect(try extents(found) == [[16, 21, 2], [21, 26, 0]])
    }

    /// A reference past `bodyDataEnd` (or wrapping around) is the chunk check's error; counted as an
    /// extent it would also report a shared extent or a gap the archive does not have.
    @Test("a dictionary reference outside body data, or wrapping, is no layout extent")
    func referenceOutside() throws {
        for offset: UInt64 in [4, 1_000, UInt64.max - 2] {
            let dictionary = ChunkEntry(offset: offset, storedLength: 5, rawLength: 9, codec: .lz4, digest: digest)
            let chunk = ChunkEntry(
                offset: 16, storedLength: 5, rawLength: 9, codec: .lz4Dictionary, digest: digest, dictionary: dictionary
            )
            let found = FoundInBodies()
            found.collectExtents(body(chunk), bodyDataEnd: 21)
            #expect(try extents(found) == [[16, 21, 0]], "offset \(offset)")
        }
    }
}
