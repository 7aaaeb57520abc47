import Testing

@testable import WebArc

/// Which chunk extents the verifier's `layout` check tiles (spec §3, §11.3).
@Suite struct LayoutExtentsTests {
    private let digest = SHA256Hash.of(Array("x".utf8))

    private func body(_ chunk: ChunkEntry) -> BodyEntry {
        BodyEntry(reference: BodyReference(digest: BodyDigest.ofEmpty), length: 9, sha256: digest, chunks: [chunk])
    }

    @Test("a dictionary reference inside body data is a layout extent")
    func referenceInside() {
        let dictionary = ChunkEntry(offset: 16, storedLength: 5, rawLength: 9, codec: .lz4, digest: digest)
        let chunk = ChunkEntry(
            offset: 21, storedLength: 5, rawLength: 9, codec: .lz4Dictionary, digest: digest, dictionary: dictionary)
        var found = FoundInBodies()
        found.collectExtents(body(chunk), bodyDataEnd: 26)
        #expect(found.chunkExtents.map { [$0.offset, $0.end] } == [[21, 26]])
        #expect(found.dictionaryExtents == [Verification.Extent(offset: 16, end: 21)])
    }

    /// A reference past `bodyDataEnd` (or wrapping around) is the chunk check's error; counted as an
    /// extent it would also report a shared extent or a gap the archive does not have.
    @Test("a dictionary reference outside body data, or wrapping, is no layout extent")
    func referenceOutside() {
        for offset: UInt64 in [4, 1_000, UInt64.max - 2] {
            let dictionary = ChunkEntry(offset: offset, storedLength: 5, rawLength: 9, codec: .lz4, digest: digest)
            let chunk = ChunkEntry(
                offset: 16, storedLength: 5, rawLength: 9, codec: .lz4Dictionary, digest: digest, dictionary: dictionary
            )
            var found = FoundInBodies()
            found.collectExtents(body(chunk), bodyDataEnd: 21)
            #expect(found.chunkExtents.map { [$0.offset, $0.end] } == [[16, 21]])
            #expect(found.dictionaryExtents.isEmpty, "offset \(offset)")
        }
    }
}
