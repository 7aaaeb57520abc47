import Crypto

extension SHA256Lanes {
    /// What one step of all sixteen lanes costs, in SHA-256 blocks hashed one stream at a time
    /// with SHA-NI, as measured on the Zen 5 cores this project's machines have: lanes pay from
    /// about six busy ones (measurements: Tools/bench/NOTES.md, 'SHA256Lanes').
    static let stepCost = 6.3

    /// A body's SHA-256 and those of its chunks as a writer cuts them.
    struct BodyHashes: Equatable {
        /// SHA-256 of the whole body.
        var sha256: SHA256Hash
        /// SHA-256 of each chunk: 262 144 bytes each but the last; none for an empty body.
        var chunks: [SHA256Hash]
    }

    /// The SHA-256 of each of `messages` and of each of its chunks, the chunks that pay hashed
    /// side by side in lanes (shortest last, a lane taking the next chunk as its own ends), the
    /// others by swift-crypto: the same digests either way.
    ///
    /// A body of one chunk hashes once for both. A longer body's own hash goes on from its first
    /// chunk's state (``SHA256Stream`` after a lane or with pairs, else swift-crypto's); where
    /// SHA-NI hashes two messages in one pass (``SHA256Stream/pairsInOnePass``), each later chunk
    /// is hashed with the body in that pass, otherwise in the lanes and then again for the body.
    /// - Parameter lanes: false to hash every chunk one stream at a time, as a CPU without
    ///   AVX-512F always does.
    /// - Parameter pairs: false to hash a long body's later chunks and the body apart (as a CPU
    ///   without SHA-NI always does).
    static func bodyHashes(
        of messages: [[UInt8]], lanes: Bool = isAvailable, pairs: Bool = SHA256Stream.pairsInOnePass
    ) -> [BodyHashes] {
        let chunkLength = ChunkEntry.maxRawLength
        // Every chunk as (message, start, length).
        var chunks: [(message: Int, start: Int, length: Int)] = []
        for (message, bytes) in messages.enumerated() {
            for start in stride(from: 0, to: bytes.count, by: chunkLength) {
                chunks.append((message, start, min(chunkLength, bytes.count - start)))
            }
        }
        var chunkDigests = [SHA256Hash?](repeating: nil, count: chunks.count)
        var bodyStreams = [SHA256Stream?](repeating: nil, count: messages.count)
        // Long bodies begun outside the lanes, without pairs: swift-crypto's SHA-256 (SHA-NI or
        // ARM's SHA-2 instructions where present) is faster than the C stream's portable code.
        var cryptoBodies = [SHA256?](repeating: nil, count: messages.count)
        // The messages stay pinned while the kernel reads them: the calls nest, one per message.
        func pin(_ pinned: [UnsafeRawBufferPointer]) {
            guard pinned.count == messages.count else {
                return messages[pinned.count].withUnsafeBytes { pin(pinned + [$0]) }
            }
            let pieces = chunks.map {
                UnsafeRawBufferPointer(rebasing: pinned[$0.message][$0.start..<$0.start + $0.length])
            }
            /// Whether chunk `index` is the first of a body of several, whose body hash goes on from it.
            func opensLongBody(_ index: Int) -> Bool {
                chunks[index].start == 0 && pinned[chunks[index].message].count > chunkLength
            }
            /// Whether chunk `index` is a later chunk of a long body, hashed with the body in one pass.
            func pairsWithBody(_ index: Int) -> Bool { pairs && chunks[index].start > 0 }
            var inLanes = 0
            let shortestFirst = chunks.indices.filter { !pairsWithBody($0) }.sorted {
                chunks[$0].length < chunks[$1].length
            }
            if lanes && isAvailable {
                inLanes = lanesThatPay(shortestFirst.map { chunks[$0].length / MD5Lanes.blockSize })
                hash(pieces, order: shortestFirst.prefix(inLanes).reversed()) { index, lane, lanes in
                    let piece = pieces[index]
                    chunkDigests[index] = lanes.finish(lane, message: piece)
                    if opensLongBody(index) {
                        bodyStreams[chunks[index].message] = lanes.stream(continuing: lane, length: UInt64(piece.count))
                    }
                }
            }
            for index in shortestFirst.dropFirst(inLanes) {
                if opensLongBody(index) && !pairs {
                    var hasher = SHA256()
                    hasher.update(bufferPointer: pieces[index])
                    chunkDigests[index] = SHA256Hash(hasher.finalize())
                    cryptoBodies[chunks[index].message] = hasher
                } else if opensLongBody(index) {
                    var stream = SHA256Stream()
                    stream.update(pieces[index])
                    chunkDigests[index] = stream.finish()
                    bodyStreams[chunks[index].message] = stream
                } else {
                    chunkDigests[index] = SHA256Hash.of(pieces[index])
                }
            }
            if pairs {
                for index in chunks.indices where pairsWithBody(index) {
                    var chunk = SHA256Stream()
                    SHA256Stream.updatePair(&bodyStreams[chunks[index].message]!, &chunk, pieces[index])
                    chunkDigests[index] = chunk.finish()
                }
            } else {
                for (message, bytes) in pinned.enumerated() where bytes.count > chunkLength {
                    let rest = UnsafeRawBufferPointer(rebasing: bytes[chunkLength...])
                    if bodyStreams[message] != nil {
                        bodyStreams[message]!.update(rest)
                    } else {
                        cryptoBodies[message]!.update(bufferPointer: rest)
                    }
                }
            }
        }
        pin([])
        var results: [BodyHashes] = []
        results.reserveCapacity(messages.count)
        var next = 0
        for (message, bytes) in messages.enumerated() {
            let count = (bytes.count + chunkLength - 1) / chunkLength
            let digests = chunkDigests[next..<next + count].map { $0! }
            next += count
            let sha256 =
                bodyStreams[message]?.finish() ?? cryptoBodies[message].map { SHA256Hash($0.finalize()) }
                ?? digests.first ?? .ofEmpty
            results.append(BodyHashes(sha256: sha256, chunks: digests))
        }
        return results
    }
}
