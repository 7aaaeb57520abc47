#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebArc

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

    /// Appends bytes.
    func append<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        try Self.translating(file.temporaryPath) { try file.append(bytes) }
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
