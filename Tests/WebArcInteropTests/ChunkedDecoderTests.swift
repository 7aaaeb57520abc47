import Testing

@testable import WebArcInterop

@Suite("ChunkedDecoder")
struct ChunkedDecoderTests {
    static func decode(_ text: String, pieceSize: Int) throws -> (bytes: [UInt8], done: Bool) {
        var decoder = ChunkedDecoder()
        var output: [UInt8] = []
        let input = Array(text.utf8)
        var start = 0
        while start < input.count {
            let end = min(start + pieceSize, input.count)
            try decoder.decode(input[start..<end], into: &output)
            start = end
        }
        return (output, decoder.isDone)
    }

    @Test("framing is removed whatever the piece size", arguments: [1, 2, 3, 7, 1000])
    func pieces(_ size: Int) throws {
        let result = try Self.decode(
            "4;name=x\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: y\r\n\r\nignored",
            pieceSize: size)
        #expect(String(decoding: result.bytes, as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.")
        #expect(result.done)
    }

    @Test("bare LF line ends are accepted")
    func bareLF() throws {
        #expect(try Self.decode("3\nabc\n0\n\n", pieceSize: 2).bytes == Array("abc".utf8))
    }

    @Test("a body that is not chunked is told apart from one that breaks later")
    func failures() throws {
        #expect(!ChunkedDecoder.startsWithChunkSize(Array("<!doctype html>\n".utf8)[...]))
        #expect(ChunkedDecoder.startsWithChunkSize(Array("1f4\r\n".utf8)[...]))
        #expect(throws: ChunkedDecoder.Failure(reason: "chunk data is not followed by CRLF", beforeFirstChunk: false)) {
            try Self.decode("3\r\nabcX", pieceSize: 100)
        }
        #expect(throws: ChunkedDecoder.Failure(reason: "\"zz\" is not a chunk size", beforeFirstChunk: true)) {
            try Self.decode("zz\r\n", pieceSize: 100)
        }
    }
}
