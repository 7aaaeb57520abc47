/// Writes every response body of an archive to a file under a folder (see `UnpackPlan` for the
/// mapping), never outside it, never through a symbolic link, never over a file without `overwrite`.
/// Each file's modification time is its response's `Last-Modified` when that is an HTTP date (as
/// `pack` writes it), so packing the folder again gives the same records.
public struct SiteUnpacker {
    /// A URL that could not be written, and why.
    public struct Skipped: Sendable, Equatable, CustomStringConvertible {
        /// The URL, canonical.
        public var url: String
        /// Why it was not written, in words.
        public var reason: String
        /// `url: reason`.
        public var description: String { "\(url): \(reason)" }
    }

    /// What an unpack did.
    public struct Summary: Sendable {
        /// Files written.
        public var filesWritten = 0
        /// Bytes of the files written.
        public var bytesWritten: UInt64 = 0
        /// Responses whose file another response with the same body already wrote.
        public var duplicates = 0
        /// Redirect records (not files).
        public var redirects = 0
        /// URLs not written, listed in key order within each reason.
        public var skipped: [Skipped] = []
    }

    /// Progress: files done, in all, bytes done, in all.
    public typealias Progress = (_ files: Int, _ totalFiles: Int, _ bytes: UInt64, _ totalBytes: UInt64) -> Void

    /// Whether an output folder that holds files is written into, same-named files replaced.
    public let overwrite: Bool
    /// Whether each file's modification time is set from its response's `Last-Modified`; when
    /// false (or the header is absent or not an HTTP date) a file keeps the time it was written.
    public let restoresModificationTimes: Bool

    /// Makes an unpacker.
    public init(overwrite: Bool = false, restoresModificationTimes: Bool = true) {
        self.overwrite = overwrite
        self.restoresModificationTimes = restoresModificationTimes
    }

    /// Unpacks `reader` into `folder`, creating it.
    ///
    /// Memory is bounded whatever the number of records: the records are read once in key order and
    /// each response's file is planned (path, body entry, modification time) into a sort by path
    /// spilled to a temporary file (`SpilledSort`); the plan is then read back in path order,
    /// where two URLs that map to one file are neighbours and a file needed as a folder is followed
    /// by the files under it, and the files are written as they come, folder by folder, on every core.
    ///
    /// Into a folder that is missing or empty, the files are written in a hidden folder inside it
    /// whose entries are moved into place at the end: until then no file shows under its name, and
    /// an unpack that fails leaves the folder as it was. Into a folder that holds files
    /// (`overwrite`), each file is written whole under a temporary name, then named.
    ///
    /// - Throws: `outputExists` when `folder` exists and is not empty and `overwrite` is false, or
    ///   when a name is taken meanwhile; `io` on write errors (with `overwrite` into a folder that
    ///   held files, files written so far stay, each complete).
    public func unpack(_ reader: ArchiveReader, into folder: String, progress: Progress? = nil) throws -> Summary {
        var plan = try plan(reader)
        var skipped = plan.skipped
        var summary = Summary()
        summary.redirects = plan.redirects
        let output = try UnpackOutput(folder: folder, overwrite: overwrite)
        do {
            let writer = FileBatchWriter(
                unpacker: self, reader: reader, output: output, progress: progress, totals: plan.totals)
            summary.duplicates = try write(&plan, with: writer, skipped: &skipped)
            summary.filesWritten = writer.written
            summary.bytesWritten = writer.bytes
            try output.publish()
        } catch {
            output.discard()
            throw error
        }
        summary.skipped = skipped.sorted { ($0.phase, $0.order) < ($1.phase, $1.order) }.map(\.skipped)
        return summary
    }

    /// Hands `writer` the planned files in path order, leaving out (and listing) a second URL for a
    /// file with another body and a file where a folder is needed; returns the URLs that shared a
    /// file with the same body.
    private func write(_ plan: inout Plan, with writer: FileBatchWriter, skipped: inout [OrderedSkip]) throws -> Int {
        let withOrigin = plan.withOrigin
        var duplicates = 0
        var next = try plan.files.next()
        while let file = next {
            next = try plan.files.next()
            let path = file.path(withOrigin: withOrigin)
            if withOrigin && file.origin.isEmpty {
                skipped.append(
                    OrderedSkip(phase: 1, order: file.order, skipped: Skipped(url: file.url, reason: Self.unsafeName)))
                writer.drop(file)
                continue
            }
            // Keyed by bytes: String equality would merge "café" precomposed and decomposed, which
            // are two different file names.
            let joined = { String(decoding: Array(path.joined(separator: [UInt8(ascii: "/")])), as: UTF8.self) }
            while let other = next, other.path(withOrigin: withOrigin) == path {
                if other.body.reference == file.body.reference {
                    duplicates += 1
                } else {
                    let reason = "\(joined()) is already written from another URL with a different body"
                    skipped.append(
                        OrderedSkip(phase: 1, order: other.order, skipped: Skipped(url: other.url, reason: reason)))
                }
                writer.drop(other)
                next = try plan.files.next()
            }
            // In path order (segment by segment) the files under a folder follow it at once.
            if let other = next, other.path(withOrigin: withOrigin).starts(with: path) {
                let reason = "\(joined()) is needed as a folder for other URLs"
                skipped.append(
                    OrderedSkip(phase: 2, order: file.order, skipped: Skipped(url: file.url, reason: reason)))
                writer.drop(file)
                continue
            }
            try writer.add(path: path.map { String(decoding: $0, as: UTF8.self) }, file: file)
        }
        try writer.finish()
        return duplicates
    }
}
