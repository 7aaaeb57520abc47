import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary file written once from start to end through a buffer, then read back in parts
/// (``Reader``): the builder's sorted runs, one after another in one file, and its document entries.
final class SpillFile {
    private let file: ScratchFile
    private var buffer: [UInt8] = []
    /// Bytes written to the file (the buffer's not counted).
    private(set) var length: UInt64 = 0
    private static let bufferSize = 1 << 20

    init(prefix: String) throws {
        file = try ScratchFile(prefix: prefix, unlinked: true)
    }

    /// Where the next byte written goes: what the file holds once the buffer is flushed.
    var position: UInt64 { length + UInt64(buffer.count) }

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

    /// Flushes and lets go of the write buffer: nothing more is written, only read.
    func finishWriting() throws {
        try flush()
        buffer = []
    }

    /// Reads bytes `range` of the file (flushed first) in order, `blockSize` bytes at a time.
    func reader(_ range: Range<UInt64>, blockSize: Int = SpillFile.bufferSize) -> Reader {
        Reader(file: file, range: range, blockSize: max(1, blockSize))
    }

    /// One part of a ``SpillFile`` read from start to end through a buffer of its own, so that
    /// many parts (sorted runs) can be read side by side with memory bounded by their blocks.
    final class Reader {
        private let file: ScratchFile
        private var offset: UInt64
        private let end: UInt64
        private let blockSize: Int
        private var block: [UInt8] = []
        private var index = 0

        fileprivate init(file: ScratchFile, range: Range<UInt64>, blockSize: Int) {
            self.file = file
            offset = range.lowerBound
            end = range.upperBound
            self.blockSize = blockSize
        }

        /// Whether every byte of the part has been read.
        var isAtEnd: Bool { index == block.count && offset == end }

        private func fill(_ needed: Int) throws {
            if index + needed <= block.count { return }
            let kept = block.count - index
            let count = Int(min(UInt64(max(needed - kept, blockSize)), end - offset))
            guard kept + count >= needed else {
                throw WebArcError.io(path: file.path, operation: .transferring("read"), errno: EIO)
            }
            var next = [UInt8](repeating: 0, count: kept + count)
            next.withUnsafeMutableBufferPointer { target in
                for number in 0..<kept { target[number] = block[index + number] }
            }
            let read = next.withUnsafeMutableBytes {
                pread(file.descriptor, $0.baseAddress! + kept, count, off_t(offset))
            }
            guard read == count else {
                throw WebArcError.io(path: file.path, operation: .transferring("read"), errno: errno)
            }
            offset += UInt64(count)
            block = next
            index = 0
        }

        func readInteger() throws -> Int {
            var value = 0
            var shift = 0
            while true {
                try fill(1)
                let byte = block[index]
                index += 1
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }

        func readBytes(_ count: Int) throws -> [UInt8] {
            try fill(count)
            defer { index += count }
            return Array(block[index..<index + count])
        }
    }
}
