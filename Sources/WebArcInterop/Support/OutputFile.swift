#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebArc

/// An export written through a temporary sibling file and renamed into place only when complete.
///
/// Until ``commit()`` the target path is never touched; on deinit without commit the temporary
/// file is removed, so a failed export leaves nothing behind.
final class OutputFile {
    let targetPath: String
    let temporaryPath: String
    let overwrite: Bool
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var committed = false
    /// Bytes written so far, buffered ones included.
    private(set) var length: UInt64 = 0

    /// Creates a temporary file next to `targetPath`.
    ///
    /// - Throws: ``InteropError/archive(_:path:)`` with `outputExists` when the target exists and
    ///   `overwrite` is false; ``InteropError/io(path:operation:errno:)`` when the folder is not writable.
    init(targetPath: String, overwrite: Bool) throws {
        self.targetPath = targetPath
        self.overwrite = overwrite
        try Self.checkAbsent(targetPath, overwrite: overwrite)
        let slash = targetPath.lastIndex(of: "/")
        let directory = slash.map { String(targetPath[..<$0]) } ?? "."
        let name = slash.map { String(targetPath[targetPath.index(after: $0)...]) } ?? targetPath
        var template = Array("\(directory.isEmpty ? "/" : directory)/.\(name).tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw InteropError.io(path: targetPath, operation: "create temporary file for", errno: errno)
        }
        descriptor = fd
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Listed so that an interrupted export removes it (``PendingOutputs``).
        PendingOutputs.register(temporaryPath)
    }

    deinit { if !committed { discard() } }

    /// Fails with `outputExists` when `path` exists and may not be replaced.
    static func checkAbsent(_ path: String, overwrite: Bool) throws {
        if !overwrite && access(path, F_OK) == 0 {
            throw InteropError.archive(.outputExists(path: path), path: path)
        }
    }

    /// Appends bytes, writing them out once a megabyte is buffered.
    func append<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        length += UInt64(bytes.count)
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        var done = 0
        while done < buffer.count {
            let wrote = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, buffer.count - done) }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                throw InteropError.io(path: temporaryPath, operation: "write", errno: wrote < 0 ? errno : EIO)
            }
            done += wrote
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, syncs and renames the temporary file onto the target.
    func commit() throws {
        try flush()
        guard fsync(descriptor) == 0 else { throw InteropError.io(path: temporaryPath, operation: "sync", errno: errno) }
        fchmod(descriptor, 0o644)
        close(descriptor)
        descriptor = -1
        committed = true
        defer { PendingOutputs.unregister(temporaryPath) }
        if !overwrite && access(targetPath, F_OK) == 0 {
            unlink(temporaryPath)
            throw InteropError.archive(.outputExists(path: targetPath), path: targetPath)
        }
        guard rename(temporaryPath, targetPath) == 0 else {
            let code = errno
            unlink(temporaryPath)
            throw InteropError.io(path: targetPath, operation: "rename into place", errno: code)
        }
    }

    /// Removes the temporary file; the target is left as it was.
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        if !committed { unlink(temporaryPath) }
        committed = true
        PendingOutputs.unregister(temporaryPath)
    }
}
