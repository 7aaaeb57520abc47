/// The files a ``FolderScanner`` found, in relative path byte order, held compactly.
///
/// A site can have millions, and the list lives through the whole pack: each file is its path's
/// bytes in one buffer that every file shares and 32 bytes of numbers; the folder it is read from
/// is a number into a table of folders, or, for a file that lies where its path says under the
/// scanned root (most of them), no folder string at all. A ``ScannedFile`` is made when one is asked for. A list
/// collected past a run's worth of files (``Collector``) keeps its paths and numbers in scratch
/// files instead (``ParkedFileList``), so that pack's memory does not grow with the site.
///
/// ```
///   paths:   d0/a.html d0/b.html index.html …           (bytes, in the order files were found)
///   entries: [start, length, size, modified, folder] …  (sorted by the paths' bytes)
///   folders: "/srv/site/d0", "/srv/site" …              (links resolved)
/// ```
package struct ScannedFiles: RandomAccessCollection, Sendable, Equatable {
    /// One file: where its path lies in ``paths``, its size and time, and its folder's number.
    struct Entry: Sendable, Equatable, BitwiseCopyable {
        var pathStart: UInt64
        var size: UInt64
        var modified: Int64
        var pathLength: UInt32
        /// Into ``folders``; ``underRoot`` for a file read at ``root`` and its path; or ``linked``
        /// for a link to a file (its path to read in ``linkTargets``).
        var folder: UInt32
    }

    private var paths: [UInt8] = []
    private var entries: [Entry] = []
    private var folders: [String] = []
    /// The scanned folder's real path, which ``underRoot`` files are read under.
    private var root = ""
    /// The path to read of each file found through a link to it, by where its path starts in ``paths``.
    private var linkTargets: [UInt64: String] = [:]
    /// The paths and entries in scratch files, when the list was collected so (``paths`` and
    /// ``entries`` are then empty).
    private var parked: ParkedFileList?
    static let linked = UInt32.max
    /// The folder number of a file read at the root joined with its path: a site of a folder per
    /// page (`slug/index.html`) keeps no string a folder.
    static let underRoot = UInt32.max - 1

    /// Folder strings held: those of files reached through a link to a folder, or given by ``append(_:)``.
    var heldFolderCount: Int { folders.count }

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
    package var endIndex: Int { parked?.count ?? entries.count }

    package subscript(position: Int) -> ScannedFile {
        if let parked {
            return parked.withEntry(at: position) { entry, path in file(entry, path: path) }
        }
        let entry = entries[position]
        let start = Int(entry.pathStart)
        return file(entry, path: paths[start..<start + Int(entry.pathLength)])
    }

    /// The size of file `position`, without making its strings.
    package func size(at position: Int) -> UInt64 {
        if let parked { return parked.withEntry(at: position) { entry, _ in entry.size } }
        return entries[position].size
    }

    /// The first error met reading a parked list back (its scratch file), if any. The list's
    /// files then come back empty: a caller that read some checks this before it trusts them.
    package var readFailure: WebArcError? { parked?.readFailure }

    /// Throws ``readFailure`` if there is one.
    package func checkReadable() throws {
        if let failure = readFailure { throw failure }
    }

    private func file(_ entry: Entry, path: some Collection<UInt8>) -> ScannedFile {
        let relativePath = String(decoding: path, as: UTF8.self)
        if entry.folder == Self.linked {
            return ScannedFile(
                relativePath: relativePath, readPath: linkTargets[entry.pathStart] ?? "", size: entry.size,
                modified: entry.modified)
        }
        let folder =
            entry.folder == Self.underRoot
            ? Self.folder(of: relativePath.utf8, under: root) : folders[Int(entry.folder)]
        return ScannedFile(relativePath: relativePath, folder: folder, size: entry.size, modified: entry.modified)
    }

    /// The folder a file whose relative path is `path` lies in under `root`, spelled as a scan
    /// lists it: `root` for a file at the top, else `root`, `/` and the path's folders.
    static func folder(of path: some BidirectionalCollection<UInt8>, under root: String) -> String {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return root }
        return root + "/" + String(decoding: path[..<slash], as: UTF8.self)
    }

    /// Adds a file at the end. The files of one folder come together, so the folder is compared
    /// with the last one only: a folder met again later is listed again (it costs a string, not a
    /// file's worth).
    package mutating func append(_ file: ScannedFile) {
        precondition(parked == nil, "a file added to a parked list")
        let start = UInt64(paths.count)
        paths.append(contentsOf: file.relativePath.utf8)
        entries.append(
            Entry(
                pathStart: start, size: file.size, modified: file.modified,
                pathLength: UInt32(file.relativePath.utf8.count),
                folder: number(ofFolder: file.folder, readPath: file.readPath, pathStart: start)))
    }

    /// The number of `folder` in ``folders`` (added if it is not the last one), or ``linked``
    /// with `readPath` kept for a link to a file.
    private mutating func number(ofFolder folder: String?, readPath: String, pathStart: UInt64) -> UInt32 {
        guard let folder else {
            linkTargets[pathStart] = readPath
            return Self.linked
        }
        return Self.number(of: folder, in: &folders)
    }

    /// The number of `folder` in `folders`, which gets it unless it is the last one: the files of
    /// one folder come together, so a folder met again later is listed again.
    static func number(of folder: String, in folders: inout [String]) -> UInt32 {
        if folders.last != folder { folders.append(folder) }
        return UInt32(folders.count - 1)
    }

    /// Puts the files in relative path byte order (paths are distinct).
    package mutating func sort() {
        precondition(parked == nil, "a parked list is sorted already")
        paths.withUnsafeBufferPointer { all in
            func path(_ entry: Entry) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: all[Int(entry.pathStart)..<Int(entry.pathStart) + Int(entry.pathLength)])
            }
            entries.sort { KeyOrder.compare(path($0), path($1)) < 0 }
        }
    }
}

extension ScannedFiles {
    /// Takes files in any order (a scan's folders as their listings end) and makes the list in path
    /// byte order, with memory bounded by a run of files however many there are: they are sorted in
    /// spilled runs (``SpilledSort``), and a list that spilled is written to scratch files as it is
    /// merged (``ParkedFileList``) instead of being held.
    package final class Collector {
        private let sort: SpilledSort<CollectedFile>
        private var folders: [String] = []
        private let root: String?

        /// - Parameters:
        ///   - runBytes: memory the files take before a run of them is spilled.
        ///   - root: the scanned folder's real path: a file listed in the folder its path names
        ///     under it keeps no folder string. Nil keeps every folder's.
        package init(runBytes: Int = 8 << 20, root: String? = nil) {
            sort = SpilledSort(prefix: "webarc-scan", runBytes: runBytes)
            self.root = root
        }

        /// Adds a file.
        ///
        /// - Throws: `io` when a run cannot be spilled.
        package func append(_ file: ScannedFile) throws {
            var folder = ScannedFiles.linked
            var linkTarget: [UInt8] = []
            if let listed = file.folder {
                let derived = root.map { ScannedFiles.folder(of: file.relativePath.utf8, under: $0) }
                folder =
                    derived?.utf8.elementsEqual(listed.utf8) == true
                    ? ScannedFiles.underRoot : ScannedFiles.number(of: listed, in: &folders)
            } else {
                linkTarget = Array(file.readPath.utf8)
            }
            try sort.append(
                CollectedFile(
                    path: Array(file.relativePath.utf8), size: file.size, modified: file.modified, folder: folder,
                    linkTarget: linkTarget))
        }

        /// The files in path byte order: in memory when they fit in one run, else parked.
        ///
        /// - Throws: `io` when a run or the parked list cannot be written or read back.
        package func finish() throws -> ScannedFiles {
            var list = ScannedFiles()
            list.folders = folders
            list.root = root ?? ""
            let parked = sort.hasSpilled ? ParkedFileList.Writer() : nil
            var files = try sort.sorted()
            while let collected = try files.next() {
                let start = parked?.pathBytes ?? UInt64(list.paths.count)
                let entry = Entry(
                    pathStart: start, size: collected.size, modified: collected.modified,
                    pathLength: UInt32(collected.path.count), folder: collected.folder)
                if collected.folder == ScannedFiles.linked {
                    list.linkTargets[start] = String(decoding: collected.linkTarget, as: UTF8.self)
                }
                if let parked {
                    try parked.append(entry, path: collected.path)
                } else {
                    list.paths += collected.path
                    list.entries.append(entry)
                }
            }
            list.parked = try parked?.finish()
            return list
        }
    }

    /// A file as the collector sorts it: its path's bytes and numbers, and the path to read of a
    /// link to a file.
    struct CollectedFile: SpilledSortElement {
        var path: [UInt8]
        var size: UInt64
        var modified: Int64
        var folder: UInt32
        /// Empty unless ``folder`` is ``ScannedFiles/linked``.
        var linkTarget: [UInt8]

        static func precedes(_ lhs: CollectedFile, _ rhs: CollectedFile) -> Bool {
            lhs.path.withUnsafeBufferPointer { left in
                rhs.path.withUnsafeBufferPointer { KeyOrder.compare(left, $0) < 0 }
            }
        }

        func encode(into writer: inout ByteWriter) {
            writer.writeLengthPrefixed(path)
            writer.write(size)
            writer.write(modified)
            writer.write(folder)
            writer.writeLengthPrefixed(linkTarget)
        }

        static func decode(_ reader: inout ByteReader) throws -> CollectedFile {
            let path = try reader.readBytes(Int(try reader.readUInt32()))
            let size = try reader.readUInt64()
            let modified = try reader.readInt64()
            let folder = try reader.readUInt32()
            let linkTarget = try reader.readBytes(Int(try reader.readUInt32()))
            return CollectedFile(path: path, size: size, modified: modified, folder: folder, linkTarget: linkTarget)
        }

        /// The struct, the two arrays' headers and their bytes.
        var heldSize: Int { 96 + path.count + linkTarget.count }
    }
}
