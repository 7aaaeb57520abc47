import Foundation
import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A body being assembled: held in memory up to ``memoryLimit`` bytes, then in a temporary file,
/// so that importing a multi-gigabyte record never holds it in memory.
final class BodySpool {
    /// Bytes kept in memory before the spool moves to a temporary file.
    static let memoryLimit = 8 << 20

    private var memory: [UInt8] = []
    private var file: ScratchFile?
    /// Bytes appended so far.
    private(set) var count: UInt64 = 0

    /// Makes an empty spool.
    init() {}

    /// Makes a spool holding `bytes`.
    convenience init<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        self.init()
        try append(bytes)
    }

    /// Appends bytes, moving to a temporary file once the memory limit is passed.
    func append<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        count += UInt64(bytes.count)
        if let file {
            try writeOut(Array(bytes), to: file)
        } else {
            memory.append(contentsOf: bytes)
            if memory.count > Self.memoryLimit {
                let file = try Self.scratchFile()
                self.file = file
                try writeOut(memory, to: file)
                memory = []
            }
        }
    }

    /// The first `count` bytes (fewer if the body is shorter).
    func prefix(_ wanted: Int) throws -> [UInt8] {
        if file == nil { return Array(memory.prefix(wanted)) }
        var result: [UInt8] = []
        try forEachPiece { piece in
            if result.count < wanted { result += piece.prefix(wanted - result.count) }
        }
        return result
    }

    /// Calls `body` with the spooled bytes in order, in pieces of at most 256 KiB.
    func forEachPiece(_ body: (ArraySlice<UInt8>) throws -> Void) throws {
        guard let file else {
            var start = 0
            while start < memory.count {
                let end = min(start + (1 << 18), memory.count)
                try body(memory[start..<end])
                start = end
            }
            return
        }
        var offset: UInt64 = 0
        var piece = [UInt8](repeating: 0, count: 1 << 18)
        while offset < count {
            let wanted = Int(min(UInt64(piece.count), count - offset))
            let got = piece.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress!, wanted, off_t(offset)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw InteropError.io(
                    path: file.path, operation: .transferring("read back"), errno: got < 0 ? errno : EIO)
            }
            try body(piece[0..<got])
            offset += UInt64(got)
        }
    }

    /// Adds the body to `writer` (streamed from the temporary file when it is large).
    func store(in writer: ArchiveWriter) throws -> StoredBody {
        if let file { return try writer.addBody(contentsOfFile: file.path) }
        return try writer.addBody(memory)
    }

    /// The whole body in memory.
    func bytes() throws -> [UInt8] {
        if file == nil { return memory }
        var result: [UInt8] = []
        result.reserveCapacity(Int(count))
        try forEachPiece { result += $0 }
        return result
    }

    /// The temporary file a body moves to; its errors are the import's.
    private static func scratchFile() throws -> ScratchFile {
        do {
            return try ScratchFile(prefix: "webarc-body")
        } catch WebArcError.io(let path, _, let code) {
            throw InteropError.io(path: path, operation: .creating("create temporary body file"), errno: code)
        }
    }

    private func writeOut(_ bytes: [UInt8], to file: ScratchFile) throws {
        if let code = FileWriting.writeAll(bytes, to: file.descriptor) {
            throw InteropError.io(path: file.path, operation: .transferring("write"), errno: code)
        }
    }
}
