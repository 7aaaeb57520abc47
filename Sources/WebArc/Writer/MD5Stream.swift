import CHashLanes

/// One MD5 message hashed as its bytes arrive (`CHashLanes`' scalar code), which
/// ``SHA256Stream/update(_:_:_:_:)`` can advance in one pass with the SHA-256 of the same bytes;
/// alone, swift-crypto's `Insecure.MD5` is the faster (measurements: Tools/bench/NOTES.md,
/// 'RawBodyStream').
struct MD5Stream {
    fileprivate var state = md5_stream()

    /// A new, empty message.
    init() {
        md5_stream_init(&state)
    }

    /// Adds the bytes at `buffer` to the message.
    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        md5_stream_update(&state, base.assumingMemoryBound(to: UInt8.self), buffer.count)
    }

    /// The digest of the message so far.
    func finish() -> BodyDigest {
        var state = self.state
        var digest = [UInt8](repeating: 0, count: 16)
        digest.withUnsafeMutableBufferPointer { out in md5_stream_finish(&state, out.baseAddress!) }
        return BodyDigest(sixteen: digest)
    }
}

extension SHA256Stream {
    /// Adds the same bytes to an MD5 message and to one or two SHA-256 messages (a chunk and the
    /// body it belongs to): with SHA-NI all in one pass, for about the cost of the MD5 alone
    /// (``pairsInOnePass``; elsewhere one at a time).
    static func update(
        _ md5: inout MD5Stream, _ first: inout SHA256Stream, _ second: inout SHA256Stream?,
        _ buffer: UnsafeRawBufferPointer
    ) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        if second == nil {
            sha256_stream_update_with_md5(&md5.state, &first.state, nil, bytes, buffer.count)
        } else {
            sha256_stream_update_with_md5(&md5.state, &first.state, &second!.state, bytes, buffer.count)
        }
    }
}
