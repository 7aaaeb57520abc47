import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary file written once from start to end through a buffer, then read back from the
/// start: the builder's sorted runs and its document entries when memory is bounded.
final class SpillFile {
    private let file: ScratchFile
    private var buffer: [UInt8] = []
    private(set) var length: UInt64 = 0
    private var readOffset: UInt64 = 0
    private var readBuffer: [UInt8] = []
    private var readIndex = 0
    private static let bufferSize = 1 << 20

    init(prefix: String) throws {
        file = try ScratchFile(prefix: prefix, unlinked: true)
    }

    func write<C: Collection<UInt8>>(_ bytes: C) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func integer(_ value: Int) throws {
        var bytes: [UInt8] = []
        LEB128.append(UInt64(value), to: &bytes)
        try write(bytes)
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        if let code = FileWriting.writeAll(buffer, to: file.descriptor, at: length) {
            throw WebArcError.io(path: file.path, operation: .transferring("write"), errno: code)
        }
        length += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Whether everything written has been read.
    var isAtEnd: Bool { readIndex == readBuffer.count && readOffset == length }

    private func fill(_ needed: Int) throws {
        if readIndex + needed <= readBuffer.count { return }
        readBuffer.removeFirst(readIndex)
        readIndex = 0
        let want = max(needed - readBuffer.count, Self.bufferSize)
        let count = Int(min(UInt64(want), length - readOffset))
        guard readBuffer.count + count >= needed else {
            throw WebArcError.io(path: file.path, operation: .transferring("read"), errno: EIO)
        }
        var chunk = [UInt8](repeating: 0, count: count)
        let read = chunk.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, count, off_t(readOffset)) }
        guard read == count else {
            throw WebArcError.io(path: file.path, operation: .transferring("read"), errno: errno)
        }
        readOffset += UInt64(count)
        readBuffer += chunk
    }

    func readInteger() throws -> Int {
        var value = 0
        var shift = 0
        while true {
            try fill(1)
            let byte = readBuffer[readIndex]
            readIndex += 1
            value |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    func readBytes(_ count: Int) throws -> [UInt8] {
        try fill(count)
        defer { readIndex += count }
        return Array(readBuffer[readIndex..<readIndex + count])
    }
}
