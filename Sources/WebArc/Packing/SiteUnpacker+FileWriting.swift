#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SiteUnpacker {
    /// Writes a new file `name` in the open folder `folder` of a fresh output's staging folder:
    /// unnamed, then named beside its open folder when complete (``UnnamedFile``), or where that
    /// cannot be done, one `openat` that fails on any name already there. A file that fails is
    /// removed; the staging folder keeps every partial file out of sight.
    ///
    /// Unnamed first: on ext4, files created by name from two workers cost several times the
    /// kernel time (Tools/bench/NOTES.md); on tmpfs the two ways cost about the same.
    ///
    /// - Parameter target: the file's path in the output folder, for messages.
    func writeNew(
        _ reader: ArchiveReader, body: BodyEntry, modified: Int64?, name: String, in folder: Int32,
        target: @autoclosure () -> String
    ) throws {
        if let fd = UnnamedFile.create(inFolder: folder) {
            defer { close(fd) }
            try copy(reader, body: body, to: fd, path: target())
            try setModificationTime(fd, modified, path: target())
            let code = UnnamedFile.link(fd, to: name, inFolder: folder)
            guard code == 0 else {
                throw code == EEXIST
                    ? WebArcError.outputExists(path: target())
                    : WebArcError.io(path: target(), operation: .creating("create"), errno: code)
            }
            return
        }
        let fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw code == EEXIST
                ? WebArcError.outputExists(path: target())
                : WebArcError.io(path: target(), operation: .creating("create"), errno: code)
        }
        do {
            try copy(reader, body: body, to: fd, path: target())
            try setModificationTime(fd, modified, path: target())
        } catch {
            close(fd)
            unlinkat(folder, name, 0)
            throw error
        }
        guard close(fd) == 0 else {
            let code = errno
            unlinkat(folder, name, 0)
            throw WebArcError.io(path: target(), operation: .transferring("write"), errno: code)
        }
    }

    /// Writes the file `name` in `directory` (which exists) of an output folder that held files:
    /// unnamed and named when complete (``UnnamedFile``), or, where that cannot be done or a file
    /// is replaced, through a temporary name renamed into place; never a partly written file
    /// under its name, never over anything but a regular file, and that only with `overwrite`.
    func writeInPlace(
        _ reader: ArchiveReader, body: BodyEntry, modified: Int64?, name: String, in directory: String
    ) throws {
        let target = directory + "/" + name
        var info = stat()
        let exists = lstat(target, &info) == 0
        if exists {
            guard overwrite, (info.st_mode & S_IFMT) == S_IFREG else { throw WebArcError.outputExists(path: target) }
        } else if let fd = UnnamedFile.create(in: directory) {
            defer { close(fd) }
            try copy(reader, body: body, to: fd, path: target)
            try setModificationTime(fd, modified, path: target)
            let code = UnnamedFile.link(fd, to: target)
            guard code == 0 else {
                throw code == EEXIST
                    ? WebArcError.outputExists(path: target)
                    : WebArcError.io(path: target, operation: .creating("create"), errno: code)
            }
            return
        }
        let temporary =
            directory + "/.webarc-unpack-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WebArcError.io(path: temporary, operation: .creating("create"), errno: errno) }
        PendingOutputs.register(temporary)
        defer { PendingOutputs.unregister(temporary) }
        do {
            defer { close(fd) }
            try copy(reader, body: body, to: fd, path: target)
            try setModificationTime(fd, modified, path: target)
        } catch {
            unlink(temporary)
            throw error
        }
        guard !exists else { return try FileWriting.rename(temporary, onto: target) }
        // Nothing was there: a name that appeared meanwhile is not replaced. Where no hard link can
        // be made (FAT), a look, then the rename.
        guard link(temporary, target) == 0 else {
            let code = errno
            if code != EEXIST && lstat(target, &info) != 0 { return try FileWriting.rename(temporary, onto: target) }
            unlink(temporary)
            throw code == EEXIST
                ? WebArcError.outputExists(path: target)
                : WebArcError.io(path: target, operation: .creating("create"), errno: code)
        }
        unlink(temporary)
    }

    /// Sets the access and modification times of the file open as `fd`, as `touch -d` does.
    private func setModificationTime(_ fd: Int32, _ seconds: Int64?, path target: @autoclosure () -> String) throws {
        guard let seconds else { return }
        var times = (timespec(tv_sec: time_t(seconds), tv_nsec: 0), timespec(tv_sec: time_t(seconds), tv_nsec: 0))
        let done = withUnsafePointer(to: &times) {
            $0.withMemoryRebound(to: timespec.self, capacity: 2) { futimens(fd, $0) == 0 }
        }
        guard done else {
            throw WebArcError.io(
                path: target(), operation: .transferring("set the modification time of"), errno: errno)
        }
    }

    /// Writes the verified bytes of `body` to `fd`; errors name `target`, the file's final name.
    private func copy(
        _ reader: ArchiveReader, body: BodyEntry, to fd: Int32, path target: @autoclosure () -> String
    ) throws {
        var chunks = try reader.makeChunkIterator(for: body)
        while let bytes = try chunks.next() {
            if let code = bytes.withUnsafeBytes({ FileWriting.writeAll($0, to: fd) }) {
                throw WebArcError.io(path: target(), operation: .transferring("write"), errno: code)
            }
        }
    }
}
