import Dispatch

#if canImport(Glibc)
import CWriteback
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written through a temporary sibling and renamed into place only when complete.
///
/// Appends are buffered; the file can be read back (for dedup comparison) and rolled back to an
/// earlier length. Until ``commit(overwrite:)`` the target path is never touched; ``discard()``
/// (or deinit) removes the temporary file, and an interrupted process removes it too
/// (``PendingOutputs``); one left by a killed process is removed by the next output written to
/// that folder (``StaleTemporaries``, in the background while the file is written, finished before
/// the rename). The archive writer and the exporters of `WebArcInterop` write through it.
///
/// ```swift
/// let file = try OutputFile(targetPath: "out.warc", overwrite: false)
/// try file.append(Array("WARC/1.1\r\n".utf8))
/// try file.commit(overwrite: false)   // fsync, rename into place, fsync the folder
/// ```
package final class OutputFile {
    /// The path the file appears at once committed.
    package let targetPath: String
    /// The temporary sibling written until then (`.NAME.tmp-PID-HOST-XXXXXX` in the same folder;
    /// those a killed process left are removed by the next ``OutputFile`` in that folder, see
    /// ``StaleTemporaries``).
    package let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 20
    /// Bytes written so far, buffered ones included.
    package private(set) var length: UInt64 = 0
    private var flushedLength: UInt64 = 0
    /// Bytes already written to the file (the rest of ``length`` is buffered).
    var flushed: UInt64 { flushedLength }
    /// Where the bytes not yet handed to the disk's write-out start (``startWriteback()``).
    private var writebackStart: UInt64 = 0
    /// Bytes written between two starts of write-out: 2 MiB, so that little is left for the fsync
    /// of ``commit(overwrite:permissions:)`` to wait for (measurements: Tools/bench/NOTES.md,
    /// 'OutputFile').
    private static let writebackStep: UInt64 = 2 << 20
    private var committed = false
    /// The sweep of the folder's stale temporaries, run beside the writing (listing a folder of
    /// thousands of files takes milliseconds of system time).
    private let sweep = DispatchGroup()

    /// Creates a temporary file next to `targetPath`.
    ///
    /// - Throws: `outputExists` when the target exists and `overwrite` is false; `io` otherwise.
    package init(targetPath: String, overwrite: Bool) throws {
        self.targetPath = targetPath
        if !overwrite && access(targetPath, F_OK) == 0 { throw WebArcError.outputExists(path: targetPath) }
        let slash = targetPath.lastIndex(of: "/")
        let directory = slash.map { String(targetPath[..<$0]) } ?? "."
        let name = slash.map { String(targetPath[targetPath.index(after: $0)...]) } ?? targetPath
        let folder = directory.isEmpty ? "/" : directory
        DispatchQueue.global(qos: .utility).async(group: sweep) { StaleTemporaries.sweep(directory: folder) }
        var template = Array(StaleTemporaries.template(directory: folder, name: name).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw WebArcError.io(path: targetPath, operation: .creating("create temporary file for"), errno: errno)
        }
        descriptor = fd
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        PendingOutputs.register(temporaryPath)
        buffer.reserveCapacity(bufferLimit)
    }

    deinit { if !committed { discard() } }

    /// Appends bytes at the end, writing them out once a megabyte is buffered.
    ///
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` when the write fails.
    package func append<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        length += UInt64(bytes.count)
        if buffer.count >= bufferLimit { try flush() }
    }

    /// Appends bytes at the end; a block of a quarter megabyte or more (a raw chunk) is written
    /// from where it is, after what is buffered, rather than copied into the buffer first.
    ///
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` when the write fails.
    package func append(_ bytes: [UInt8]) throws {
        guard bytes.count >= bufferLimit / 4 else { return try append(bytes[...]) }
        try flush()
        try write(bytes, at: flushedLength)
        flushedLength += UInt64(bytes.count)
        length += UInt64(bytes.count)
        startWriteback()
    }

    /// Starts writing to disk, without waiting, the bytes written since the last start once they
    /// make ``writebackStep``: the page cache would otherwise hold them all until the fsync of
    /// ``commit(overwrite:permissions:)``, which then waits for every one. A hint: failure changes
    /// nothing but that wait (Linux only, and not when ``Platform/portable``).
    private func startWriteback(atLeast step: UInt64 = writebackStep) {
        #if canImport(Glibc)
        guard flushedLength - writebackStart >= step, !Platform.portable else { return }
        _ = sync_file_range(
            descriptor, Int64(writebackStart), Int64(flushedLength - writebackStart), WEBARC_SYNC_FILE_RANGE_WRITE)
        writebackStart = flushedLength
        #endif
    }

    /// Writes what is buffered and starts writing to disk, without waiting, every byte not yet
    /// started: for a writer that has written the bulk of its file (an archive's body data), so
    /// that the disk works while it builds the rest and the fsync of
    /// ``commit(overwrite:permissions:)`` waits for that rest alone.
    ///
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` when writing the buffer fails.
    package func startWritebackOfAll() throws {
        try flush()
        startWriteback(atLeast: 1)
    }

    /// Writes buffered bytes to the file.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        try write(buffer, at: flushedLength)
        flushedLength += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
        startWriteback()
    }

    /// Reads back `count` bytes written earlier at `offset`.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        if offset + UInt64(count) > flushedLength { try flush() }
        return try readFlushed(at: offset, count: count)
    }

    /// Reads back `count` bytes at `offset`, all of them already in the file (below ``flushed``
    /// when the caller looked): touches no buffer, so another thread may call it while this one
    /// appends.
    func readFlushed(at offset: UInt64, count: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = result.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw WebArcError.io(
                    path: temporaryPath, operation: .transferring("read back"), errno: got < 0 ? errno : EIO)
            }
            done += got
        }
        return result
    }

    /// Appends the first `count` bytes of the file open at `source` (read from offset 0), copied
    /// in the kernel (`sendfile`) where it can, through a 1 MiB buffer otherwise (and when
    /// ``Platform/portable``).
    ///
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` naming `sourcePath` when it ends early
    ///   or a read fails, the temporary file when a write fails.
    func appendCopy(from source: Int32, sourcePath: String, count: UInt64) throws {
        try flush()
        var copied: UInt64 = 0
        #if os(Linux)
        if !Platform.portable && lseek(descriptor, off_t(flushedLength), SEEK_SET) >= 0 {
            var sourceOffset = off_t(0)
            while copied < count {
                let sent = sendfile(descriptor, source, &sourceOffset, Int(min(count - copied, 1 << 30)))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { break }  // unsupported here or an early end: the loop below decides
                copied += UInt64(sent)
            }
        }
        #endif
        var buffer = [UInt8](repeating: 0, count: Int(min(count - copied, 1 << 20)))
        while copied < count {
            let want = Int(min(count - copied, UInt64(buffer.count)))
            let got = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress!, want, off_t(copied)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw WebArcError.io(
                    path: sourcePath, operation: .transferring("copy from"), errno: got < 0 ? errno : EIO)
            }
            try write(Array(buffer[0..<got]), at: flushedLength + copied)
            copied += UInt64(got)
        }
        length += count
        flushedLength += count
    }

    /// Drops everything written after `newLength`.
    func rollBack(to newLength: UInt64) throws {
        try flush()
        guard ftruncate(descriptor, off_t(newLength)) == 0 else {
            throw WebArcError.io(path: temporaryPath, operation: .transferring("truncate"), errno: errno)
        }
        length = newLength
        flushedLength = newLength
        writebackStart = min(writebackStart, newLength)
    }

    /// Overwrites bytes at `offset` (used once, for the header).
    func write(_ bytes: [UInt8], at offset: UInt64) throws {
        if let code = FileWriting.writeAll(bytes, to: descriptor, at: offset) {
            throw WebArcError.io(path: temporaryPath, operation: .transferring("write"), errno: code)
        }
    }

    /// Flushes, syncs and renames the temporary file onto the target, then syncs the folder.
    ///
    /// - Parameter permissions: the file's mode once in place. The temporary file is created 0600
    ///   (`mkstemp`), so a private key committed with 0600 is never readable by others at any moment.
    /// - Throws: ``WebArcError/outputExists(path:)`` when the target appeared meanwhile and
    ///   `overwrite` is false; ``WebArcError/io(path:operation:errno:)`` when a step fails. The
    ///   temporary file is removed either way.
    package func commit(overwrite: Bool, permissions: mode_t = 0o644) throws {
        try flush()
        guard fsync(descriptor) == 0 else {
            throw WebArcError.io(path: temporaryPath, operation: .transferring("sync"), errno: errno)
        }
        if permissions != 0o600 { fchmod(descriptor, permissions) }
        close(descriptor)
        descriptor = -1
        sweep.wait()
        if !overwrite && access(targetPath, F_OK) == 0 {
            unlink(temporaryPath)
            committed = true
            PendingOutputs.unregister(temporaryPath)
            throw WebArcError.outputExists(path: targetPath)
        }
        committed = true
        do {
            defer { PendingOutputs.unregister(temporaryPath) }
            try FileWriting.rename(temporaryPath, onto: targetPath)
        }
        let slash = targetPath.lastIndex(of: "/")
        let directory = slash.map { String(targetPath[..<$0]) } ?? "."
        let folder = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Closes and removes the temporary file; the target path is untouched.
    package func discard() {
        sweep.wait()
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        if !committed {
            unlink(temporaryPath)
            committed = true
        }
        PendingOutputs.unregister(temporaryPath)
    }
}
