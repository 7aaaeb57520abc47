import Foundation
import WebArc

/// Holds one response body while it arrives: in memory up to a limit, then in a temporary file.
///
/// Concurrent exchanges each fill their own spool, and a body goes into the archive writer in
/// one piece once complete (the writer lays out one body at a time), so memory stays bounded by
/// the limit per exchange in flight whatever the body sizes.
final class BodySpool {
    /// Bytes kept in memory before spilling to a file (1 MiB).
    static let memoryLimit = 1 << 20
    /// The size of the pieces ``pieces()`` yields (256 KiB, one archive chunk).
    static let pieceSize = 256 << 10

    private var memory = Data()
    private var file: ScratchFile?
    /// Bytes appended so far.
    private(set) var length = 0

    /// Appends bytes, moving the body to a temporary file when it outgrows ``memoryLimit``.
    ///
    /// - Throws: `io` when the temporary file cannot be created or written.
    func append(_ data: Data) throws {
        length += data.count
        if let file {
            try write(data, to: file)
            return
        }
        memory.append(data)
        guard memory.count > Self.memoryLimit else { return }
        let file = try ScratchFile(prefix: "webarc-spool")
        self.file = file
        try write(memory, to: file)
        memory = Data()
    }

    /// Adds the body to `writer`.
    func store(in writer: ArchiveWriter) throws -> StoredBody {
        guard let file else { return try writer.addBody(memory) }
        return try writer.addBody(contentsOfFile: file.path)
    }

    /// A pull reader over the bytes, in pieces of at most ``pieceSize``; nil after the last.
    func pieces() throws -> () throws -> [UInt8]? {
        guard let file else {
            let memory = self.memory
            var start = 0
            return {
                guard start < memory.count else { return nil }
                defer { start += Self.pieceSize }
                return [UInt8](memory[start..<min(start + Self.pieceSize, memory.count)])
            }
        }
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: file.path))
        return {
            guard let piece = try reader.read(upToCount: Self.pieceSize), !piece.isEmpty else {
                try? reader.close()
                return nil
            }
            return [UInt8](piece)
        }
    }

    /// The whole body when it is at most `limit` bytes long, else nil.
    func bytes(upTo limit: Int) throws -> Data? {
        guard length <= limit else { return nil }
        guard file != nil else { return memory }
        var data = Data(capacity: length)
        let next = try pieces()
        while let piece = try next() { data.append(contentsOf: piece) }
        return data
    }

    private func write(_ data: Data, to file: ScratchFile) throws {
        if let code = data.withUnsafeBytes({ FileWriting.writeAll($0, to: file.descriptor) }) {
            throw WebArcError.io(path: file.path, operation: .transferring("write temporary body file"), errno: code)
        }
    }
}
