import CZlib

/// Writes gzip members: each call to ``finishMember(into:)`` closes one complete gzip file, so
/// records compressed one per member can be read from their own offset (WARC 1.1 Annex D).
final class GzipWriter {
    private let stream: UnsafeMutablePointer<z_stream>

    /// Makes a compressor at zlib level `level` (6 is zlib's default).
    init(level: Int32 = 6) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed with status \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `input` into the current member, appending output to `output`.
    func compress<C: Collection>(_ input: C, into output: inout [UInt8]) where C.Element == UInt8 {
        let bytes = Array(input)
        run(bytes[...], flush: Z_NO_FLUSH, into: &output)
    }

    /// Ends the current member (gzip trailer included) and starts the next.
    func finishMember(into output: inout [UInt8]) {
        run([][...], flush: Z_FINISH, into: &output)
        deflateReset(stream)
    }

    private func run(_ input: ArraySlice<UInt8>, flush: Int32, into output: inout [UInt8]) {
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = uInt(source.count)
            while true {
                var status: Int32 = Z_OK
                let produced = piece.withUnsafeMutableBufferPointer { target -> Int in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = uInt(target.count)
                    status = deflate(stream, flush)
                    return target.count - Int(stream.pointee.avail_out)
                }
                output.append(contentsOf: piece[0..<produced])
                if flush == Z_FINISH {
                    if status == Z_STREAM_END { break }
                } else if stream.pointee.avail_in == 0 && produced < piece.count {
                    break
                }
            }
        }
    }
}
