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
    private var descriptor: Int32 = -1
    private var filePath: String?
    /// Bytes appended so far.
    private(set) var count: UInt64 = 0

    /// Makes an empty spool.
    init() {}

    /// Makes a spool holding `bytes`.
    convenience init<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        self.init()
        try append(bytes)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if let filePath { unlink(filePath) }
    }

    /// Appends bytes, moving to a temporary file once the memory limit is passed.
    func append<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        count += UInt64(bytes.count)
        if descriptor < 0 {
            memory.append(contentsOf: bytes)
            if memory.count > Self.memoryLimit {
                try openFile()
                try writeOut(memory)
                memory = []
            }
        } else {
            try writeOut(Array(bytes))
        }
    }

    /// The first `count` bytes (fewer if the body is shorter).
    func prefix(_ wanted: Int) throws -> [UInt8] {
        if descriptor < 0 { return Array(memory.prefix(wanted)) }
        var result: [UInt8] = []
        try forEachPiece { piece in
            if result.count < wanted { result += piece.prefix(wanted - result.count) }
        }
        return result
    }

    /// Calls `body` with the spooled bytes in order, in pieces of at most 256 KiB.
    func forEachPiece(_ body: (ArraySlice<UInt8>) throws -> Void) throws {
        guard descriptor >= 0 else {
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
            let got = piece.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, wanted, off_t(offset)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw InteropError.io(path: filePath ?? "spool", operation: .transferring("read back"), errno: got < 0 ? errno : EIO)
            }
            try body(piece[0..<got])
            offset += UInt64(got)
        }
    }

    /// Adds the body to `writer` (streamed from the temporary file when it is large).
    func store(in writer: ArchiveWriter) throws -> StoredBody {
        if let filePath { return try writer.addBody(contentsOfFile: filePath) }
        return try writer.addBody(memory)
    }

    /// The whole body in memory.
    func bytes() throws -> [UInt8] {
        if descriptor < 0 { return memory }
        var result: [UInt8] = []
        result.reserveCapacity(Int(count))
        try forEachPiece { result += $0 }
        return result
    }

    private func openFile() throws {
        var template = Array((NSTemporaryDirectory() + "/webarc-body-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard fd >= 0 else { throw InteropError.io(path: path, operation: .creating("create temporary body file"), errno: errno) }
        descriptor = fd
        filePath = path
    }

    private func writeOut(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, bytes.count - done) }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                throw InteropError.io(path: filePath ?? "spool", operation: .transferring("write"), errno: wrote < 0 ? errno : EIO)
            }
            done += wrote
        }
    }
}
