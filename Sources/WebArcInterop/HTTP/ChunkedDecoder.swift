/// Removes `Transfer-Encoding: chunked` framing from a body fed in pieces of any size.
///
/// ```
/// 1a;ext=1 CRLF  <26 bytes> CRLF  … 0 CRLF  [trailer fields CRLF]  CRLF
/// ```
/// Bare LF is accepted where CRLF is expected. A body whose first line is not a chunk size is
/// reported through ``Failure/beforeFirstChunk`` so the caller can keep it as it is: some
/// crawlers store de-chunked bodies but keep the header (warcio reads those the same way).
struct ChunkedDecoder {
    /// Why the framing broke, and whether it broke before any chunk was read.
    struct Failure: Error, Equatable {
        let reason: String
        let beforeFirstChunk: Bool
    }

    private enum State {
        case sizeLine
        case data(remaining: UInt64)
        case dataEnd(sawCR: Bool)
        case trailer
        case done
    }

    private var state = State.sizeLine
    private var line: [UInt8] = []
    private var sawChunk = false
    /// Whether the last chunk and the trailer have been read.
    var isDone: Bool { if case .done = state { true } else { false } }
    /// Whether the input ended between chunks (complete so far) rather than inside one.
    var atChunkBoundary: Bool { if case .sizeLine = state { line.isEmpty } else { isDone } }

    /// Decodes `input`, appending body bytes to `output`; bytes after the trailer are ignored.
    mutating func decode(_ input: ArraySlice<UInt8>, into output: inout [UInt8]) throws(Failure) {
        var index = input.startIndex
        while index < input.endIndex {
            switch state {
            case .done:
                return
            case .data(let remaining):
                let take = Int(min(remaining, UInt64(input.endIndex - index)))
                output.append(contentsOf: input[index..<index + take])
                index += take
                state = remaining == UInt64(take) ? .dataEnd(sawCR: false) : .data(remaining: remaining - UInt64(take))
            case .dataEnd(let sawCR):
                let byte = input[index]
                index += 1
                if byte == 0x0A {
                    state = .sizeLine
                } else if byte == 0x0D && !sawCR {
                    state = .dataEnd(sawCR: true)
                } else {
                    throw Failure(reason: "chunk data is not followed by CRLF", beforeFirstChunk: false)
                }
            case .sizeLine, .trailer:
                let byte = input[index]
                index += 1
                guard byte == 0x0A else {
                    line.append(byte)
                    if line.count > 4096 {
                        throw Failure(
                            reason: "a chunk size line is longer than 4096 bytes", beforeFirstChunk: !sawChunk)
                    }
                    continue
                }
                if line.last == 0x0D { line.removeLast() }
                try endOfLine()
                line.removeAll()
            }
        }
    }

    /// Whether `prefix` (the first bytes of a body) starts with a chunk-size line.
    static func startsWithChunkSize(_ prefix: ArraySlice<UInt8>) -> Bool {
        var probe = ChunkedDecoder()
        var sink: [UInt8] = []
        do {
            guard let end = prefix.firstIndex(of: 0x0A) else { return false }
            try probe.decode(prefix[...end], into: &sink)
            return probe.sawChunk
        } catch {
            return false
        }
    }

    private mutating func endOfLine() throws(Failure) {
        if case .trailer = state {
            if line.isEmpty { state = .done }
            return
        }
        let sizeText = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != 0x20 && $0 != 0x09 }
        guard !sizeText.isEmpty, sizeText.count <= 16,
            let size = UInt64(String(decoding: sizeText, as: UTF8.self), radix: 16)
        else {
            let shown = String(decoding: line.prefix(40), as: UTF8.self)
            throw Failure(reason: "\"\(shown)\" is not a chunk size", beforeFirstChunk: !sawChunk)
        }
        sawChunk = true
        state = size == 0 ? .trailer : .data(remaining: size)
    }
}
