import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder an unpack writes, open for `*at` calls.
///
/// Into a folder that is missing or empty (``fresh``), files are written in a hidden staging
/// folder inside it, and ``publish()`` moves the staging folder's entries into place at the end:
/// no file is seen under its name before the whole unpack is done, an unpack that fails leaves
/// the folder as it was (removed when it made it), and each file is made with one `openat` beside
/// its already open folder, nothing looked up first. Into a folder that holds files (`overwrite`),
/// files are written in place, each through a temporary name (``SiteUnpacker``).
final class UnpackOutput {
    /// The output folder, as given.
    let path: String
    /// Whether the output folder was missing or empty when the unpack began.
    let fresh: Bool
    /// The folder files go in: the staging folder when ``fresh``, else the output folder.
    let descriptor: Int32
    private let outputDescriptor: Int32
    /// The staging folder's name in the output folder (when ``fresh``).
    private let staging: String?
    /// Whether the output folder was made by this unpack.
    private let made: Bool

    /// Opens (or makes) `folder` and, when it is empty, a staging folder in it.
    ///
    /// - Throws: `outputExists` when `folder` is not a folder (a file, a symbolic link) or holds
    ///   files and `overwrite` is false; `io` when it cannot be made or opened.
    init(folder: String, overwrite: Bool) throws {
        var info = stat()
        var made = false
        if lstat(folder, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw WebArcError.outputExists(path: folder) }
        } else if mkdir(folder, 0o755) == 0 {
            made = true
        } else {
            throw WebArcError.io(path: folder, operation: .creating("create folder"), errno: errno)
        }
        let output = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard output >= 0 else {
            let code = errno
            if made { rmdir(folder) }
            throw WebArcError.io(path: folder, operation: .creating("open folder"), errno: code)
        }
        let empty = made || ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [""]).isEmpty
        guard empty || overwrite else {
            close(output)
            throw WebArcError.outputExists(path: folder)
        }
        path = folder
        fresh = empty
        outputDescriptor = output
        self.made = made
        guard empty else {
            staging = nil
            descriptor = output
            return
        }
        // Only this process writes in it (0700) until its entries are moved out.
        let name = ".webarc-unpack-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let staged = mkdirat(output, name, 0o700) == 0 ? openat(output, name, Self.folderFlags) : -1
        guard staged >= 0 else {
            let code = errno
            unlinkat(output, name, AT_REMOVEDIR)
            close(output)
            if made { rmdir(folder) }
            throw WebArcError.io(path: folder + "/" + name, operation: .creating("create folder"), errno: code)
        }
        staging = name
        descriptor = staged
        PendingOutputs.registerFolder(folder + "/" + name)
    }

    deinit {
        if descriptor != outputDescriptor { close(descriptor) }
        close(outputDescriptor)
    }

    /// Flags that open a folder for `*at` calls, never through a symbolic link.
    static let folderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

    /// Moves the staging folder's entries into the output folder, each in one step and none over
    /// a name that appeared there meanwhile, then removes the staging folder.
    ///
    /// - Throws: `outputExists` naming an entry whose name is taken; `io`.
    func publish() throws {
        guard let staging else { return }
        let names = try FileManager.default.contentsOfDirectory(atPath: path + "/" + staging)
        for name in names { try move(name) }
        guard unlinkat(outputDescriptor, staging, AT_REMOVEDIR) == 0 else {
            throw WebArcError.io(path: path + "/" + staging, operation: .creating("remove folder"), errno: errno)
        }
        PendingOutputs.unregisterFolder(path + "/" + staging)
    }

    /// Moves entry `name` of the staging folder into the output folder without replacing anything:
    /// a folder with `renameat` (which fails over a file, a link or a folder that is not empty),
    /// a file with `linkat` (which fails over any name), or, where links cannot be made (FAT), with
    /// `renameat` after a look.
    private func move(_ name: String) throws {
        let target = path + "/" + name
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw WebArcError.io(path: target, operation: .creating("rename onto"), errno: errno)
        }
        func fail(_ code: Int32) -> WebArcError {
            [EEXIST, ENOTEMPTY, ENOTDIR, EISDIR].contains(code)
                ? .outputExists(path: target) : .io(path: target, operation: .creating("rename onto"), errno: code)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard renameat(descriptor, name, outputDescriptor, name) == 0 else { throw fail(errno) }
            return
        }
        if linkat(descriptor, name, outputDescriptor, name, 0) == 0 {
            unlinkat(descriptor, name, 0)
            return
        }
        let code = errno
        guard code != EEXIST, fstatat(outputDescriptor, name, &info, AT_SYMLINK_NOFOLLOW) != 0 else {
            throw fail(EEXIST)
        }
        guard renameat(descriptor, name, outputDescriptor, name) == 0 else { throw fail(errno) }
    }

    /// Removes the staging folder and all in it, and the output folder when this unpack made it
    /// and it is empty: what an unpack that failed leaves of a fresh output.
    func discard() {
        guard let staging else { return }
        try? FileManager.default.removeItem(atPath: path + "/" + staging)
        PendingOutputs.unregisterFolder(path + "/" + staging)
        if made { rmdir(path) }
    }
}
