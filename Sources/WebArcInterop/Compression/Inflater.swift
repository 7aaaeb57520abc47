import CZlib

/// Why zlib refused input, before the caller adds where.
struct InflateFailure: Error, Equatable {
    let reason: String
}

/// Streaming inflate over zlib: gzip (one member at a time), zlib-wrapped or raw deflate.
///
/// Nothing else in the module calls zlib's inflate. Output is produced in caller-sized pieces, so
/// memory stays bounded however much the input expands.
final class Inflater {
    /// The wrapper around the deflate data.
    enum Format {
        /// RFC 1952 gzip; one member, then ``finished`` is true until ``reset()``.
        case gzip
        /// RFC 1950 zlib (what HTTP calls `deflate`).
        case zlib
        /// RFC 1951 raw deflate (what some servers send as `deflate`).
        case raw
    }

    let format: Format
    private let stream: UnsafeMutablePointer<z_stream>
    /// Where zlib writes before the bytes are appended to the caller's array.
    private var scratch = [UInt8](repeating: 0, count: 1 << 18)
    /// Whether the end of the compressed stream (or gzip member) has been reached.
    private(set) var finished = false

    /// Makes an inflater.
    init(format: Format) throws(InflateFailure) {
        self.format = format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let windowBits: Int32 =
            switch format {
            case .gzip: 15 + 16
            case .zlib: 15
            case .raw: -15
            }
        let status = inflateInit2_(stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw InflateFailure(reason: "zlib could not start (status \(status))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Starts over for a new stream (the next gzip member).
    func reset() {
        inflateReset(stream)
        finished = false
    }

    /// Inflates from `input`, appending at most `limit` bytes (and at most 256 KiB) to `output`.
    ///
    /// - Returns: how many input bytes were consumed. Zero consumed and zero produced means zlib
    ///   needs more input (or the stream is finished).
    /// - Throws: ``InflateFailure`` when the data is not valid for the format.
    @discardableResult
    func inflate(_ input: ArraySlice<UInt8>, into output: inout [UInt8], limit: Int) throws(InflateFailure) -> Int {
        guard !finished, limit > 0 else { return 0 }
        let room = min(limit, scratch.count)
        var status: Int32 = Z_OK
        var consumed = 0
        var produced = 0
        input.withUnsafeBufferPointer { source in
            scratch.withUnsafeMutableBufferPointer { target in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.pointee.avail_in = uInt(source.count)
                stream.pointee.next_out = target.baseAddress
                stream.pointee.avail_out = uInt(room)
                status = CZlib.inflate(stream, Z_NO_FLUSH)
                consumed = source.count - Int(stream.pointee.avail_in)
                produced = room - Int(stream.pointee.avail_out)
            }
        }
        output.append(contentsOf: scratch[0..<produced])
        switch status {
        case Z_OK, Z_BUF_ERROR: return consumed
        case Z_STREAM_END:
            finished = true
            return consumed
        default:
            let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
            throw InflateFailure(reason: message)
        }
    }

    /// Inflates a whole buffer of one stream; fails when the stream does not end or the output
    /// would pass `maxOutput` bytes.
    static func inflateAll(_ input: [UInt8], format: Format, maxOutput: Int) throws(InflateFailure) -> [UInt8] {
        let inflater = try Inflater(format: format)
        var output: [UInt8] = []
        var offset = 0
        while !inflater.finished {
            let before = output.count
            offset += try inflater.inflate(input[offset...], into: &output, limit: 1 << 18)
            if output.count > maxOutput { throw InflateFailure(reason: "expands past \(maxOutput) bytes") }
            if output.count == before && !inflater.finished && offset >= input.count {
                throw InflateFailure(reason: "the compressed data ends early")
            }
        }
        return output
    }
}
