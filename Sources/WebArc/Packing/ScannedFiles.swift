/// The files a ``FolderScanner`` found, in relative path byte order, held compactly.
///
/// A site can have millions, and the list lives through the whole pack: each file is its path's
/// bytes in one buffer that every file shares and 32 bytes of numbers; the folder it is read from
/// is a number into a table of folders. A ``ScannedFile`` is made when one is asked for.
///
/// ```
///   paths:   d0/a.html d0/b.html index.html …           (bytes, in the order files were found)
///   entries: [start, length, size, modified, folder] …  (sorted by the paths' bytes)
///   folders: "/srv/site/d0", "/srv/site" …              (links resolved)
/// ```
package struct ScannedFiles: RandomAccessCollection, Sendable, Equatable {
    /// One file: where its path lies in ``paths``, its size and time, and its folder's number.
    private struct Entry: Sendable, Equatable {
        var pathStart: UInt64
        var size: UInt64
        var modified: Int64
        var pathLength: UInt32
        /// Into ``folders``, or ``linked`` for a link to a file (its path to read in ``linkTargets``).
        var folder: UInt32
    }

    private var paths: [UInt8] = []
    private var entries: [Entry] = []
    private var folders: [String] = []
    /// The path to read of each file found through a link to it, by where its path starts in ``paths``.
    private var linkTargets: [UInt64: String] = [:]
    private static let linked = UInt32.max

    package init() {}

    /// `files` in the order given; ``sort()`` puts them in path order.
    package init<S: Sequence<ScannedFile>>(_ files: S) {
        for file in files { append(file) }
    }

    /// Whether both hold the same files in the same order, however their bytes are laid out.
    package static func == (lhs: ScannedFiles, rhs: ScannedFiles) -> Bool {
        lhs.elementsEqual(rhs)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { entries.count }

    package subscript(position: Int) -> ScannedFile {
        let entry = entries[position]
        let start = Int(entry.pathStart)
        let relativePath = String(decoding: paths[start..<start + Int(entry.pathLength)], as: UTF8.self)
        if entry.folder == Self.linked {
            return ScannedFile(
                relativePath: relativePath, readPath: linkTargets[entry.pathStart]!, size: entry.size,
                modified: entry.modified)
        }
        return ScannedFile(
            relativePath: relativePath, folder: folders[Int(entry.folder)], size: entry.size, modified: entry.modified)
    }

    /// The size of file `position`, without making its strings.
    package func size(at position: Int) -> UInt64 { entries[position].size }

    /// Adds a file at the end. The files of one folder come together, so the folder is compared
    /// with the last one only: a folder met again later is listed again (it costs a string, not a
    /// file's worth).
    package mutating func append(_ file: ScannedFile) {
        let start = UInt64(paths.count)
        paths.append(contentsOf: file.relativePath.utf8)
        var folder = Self.linked
        if let listed = file.folder {
            if folders.last != listed { folders.append(listed) }
            folder = UInt32(folders.count - 1)
        } else {
            linkTargets[start] = file.readPath
        }
        entries.append(
            Entry(
                pathStart: start, size: file.size, modified: file.modified,
                pathLength: UInt32(file.relativePath.utf8.count), folder: folder))
    }

    /// Puts the files in relative path byte order (paths are distinct).
    package mutating func sort() {
        paths.withUnsafeBufferPointer { all in
            func path(_ entry: Entry) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: all[Int(entry.pathStart)..<Int(entry.pathStart) + Int(entry.pathLength)])
            }
            entries.sort { KeyOrder.compare(path($0), path($1)) < 0 }
        }
    }
}
