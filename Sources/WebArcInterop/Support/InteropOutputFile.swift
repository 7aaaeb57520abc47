import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An export written through the core's ``WebArc/OutputFile`` (temporary sibling, fsync, rename
/// into place, folder fsync; removed when dropped or interrupted), with its errors as
/// ``InteropError``s.
final class InteropOutputFile {
    private let file: OutputFile
    /// Whether an existing target may be replaced.
    let overwrite: Bool

    /// Creates a temporary file next to `targetPath`.
    ///
    /// - Throws: ``InteropError/archive(_:path:)`` with `outputExists` when the target exists and
    ///   `overwrite` is false; ``InteropError/io(path:operation:errno:)`` when the folder is not writable.
    init(targetPath: String, overwrite: Bool) throws {
        self.overwrite = overwrite
        file = try Self.translating(targetPath) { try OutputFile(targetPath: targetPath, overwrite: overwrite) }
    }

    /// The path the export appears at once committed.
    var targetPath: String { file.targetPath }
    /// The temporary sibling written until the commit.
    var temporaryPath: String { file.temporaryPath }
    /// Bytes written so far.
    var length: UInt64 { file.length }

    /// Fails with `outputExists` when `path` exists and may not be replaced.
    static func checkAbsent(_ path: String, overwrite: Bool) throws {
        if !overwrite && access(path, F_OK) == 0 {
            throw InteropError.archive(.outputExists(path: path), path: path)
        }
    }

    /// Sees every block appended while set (a ZIP member's CRC-32 and digest as it is written).
    var tap: ((UnsafeRawBufferPointer) -> Void)?

    /// Appends bytes.
    func append<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        if let tap, bytes.withContiguousStorageIfAvailable({ tap(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes(tap)
        }
        try Self.translating(file.temporaryPath) { try file.append(bytes) }
    }

    /// Writes `bytes` over earlier ones at `offset` (a ZIP local header, once its sizes are known).
    ///
    /// - Throws: ``InteropError/io(path:operation:errno:)``.
    func overwrite(_ bytes: [UInt8], at offset: UInt64) throws {
        precondition(offset + UInt64(bytes.count) <= length, "overwrite past the end of \(temporaryPath)")
        // Whatever is buffered goes to the file first, so that it cannot land on the new bytes later.
        try Self.translating(file.temporaryPath) { try file.startWritebackOfAll() }
        let descriptor = open(file.temporaryPath, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw InteropError.io(path: file.temporaryPath, operation: .transferring("write"), errno: errno)
        }
        defer { close(descriptor) }
        if let code = FileWriting.writeAll(bytes, to: descriptor, at: offset) {
            throw InteropError.io(path: file.temporaryPath, operation: .transferring("write"), errno: code)
        }
    }

    /// Syncs and renames the temporary file onto the target.
    func commit() throws {
        try Self.translating(file.targetPath) { try file.commit(overwrite: overwrite) }
    }

    /// Removes the temporary file; the target is left as it was.
    func discard() { file.discard() }

    /// Runs `body`, turning the core's I/O errors into ``InteropError/io(path:operation:errno:)``
    /// and its other errors into ``InteropError/archive(_:path:)``.
    private static func translating<Value>(_ path: String, _ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch WebArcError.io(let path, let operation, let code) {
            throw InteropError.io(path: path, operation: operation, errno: code)
        } catch let error as WebArcError {
            throw InteropError.archive(error, path: path)
        }
    }
}
