import Foundation

/// Packs a folder holding a website into an archive: every file a GET response at the base URL
/// plus its percent-encoded path, `folder/` answering with `folder/index.html`, and `folder` a 301
/// to `folder/`.
///
/// ```swift
/// var packer = SitePacker(options: .init(baseURL: "http://localhost/"))
/// let summary = try packer.pack(folder: "site", to: "site.webarc")
/// ```
public struct SitePacker {
    /// What to pack and how.
    public struct Options: Sendable {
        /// The URL the folder is packed under; ends with `/`.
        public var baseURL: String
        public var outsideLinks: OutsideLinkPolicy
        /// Leave out loops, special and unreadable files instead of failing.
        public var skipUnreadable: Bool
        public var overwrite: Bool
        /// The archive's creation date; absent by default so output is deterministic.
        public var created: Date?
        /// What each response's `Last-Modified` says: the file's modification time by default.
        public var lastModified: LastModified = .fileTime
        /// LZ4 level: 1 fast, 3–12 LZ4HC (see ``ArchiveWriter/Options/compressionLevel``).
        public var compressionLevel: Int
        /// Bodies per dictionary anchor (spec Appendix C step 13); 0: no dictionaries.
        public var dictionaryInterval: Int = SitePacker.defaultDictionaryInterval
        /// Which bodies are anchors (``AnchorPlan``): by default local minima of the files' URL key
        /// hashes (`Writer.anchors` 2), so that a page added or dropped in the next release moves
        /// only the anchors near it; `.keyed` is 2.1.5's rule, nil every
        /// `dictionaryInterval`-th body, as before 2.1.5.
        package var anchorRule: AnchorPlan.KeyedRule? = .localMinimum
        /// Zstandard level for bodies with a dictionary (spec Appendix C step 15; see
        /// ``ArchiveWriter/Options/zstdLevel``); nil: LZ4 only.
        public var zstdLevel: Int?
        /// Group new bodies of up to this many bytes into shared chunks of up to this many bytes (see
        /// ``ArchiveWriter/Options/groups``); dictionaries are then off. nil: no groups.
        public var groups: Int?
        /// Where a codec-2 chunk's dictionary lies when LZ4 compresses it (see
        /// ``ArchiveWriter/Options/dictionaryPlacement``): right before the chunk by default.
        public var dictionaryPlacement: DictionaryPlacement = .prefix
        /// Files larger than this stream through the workers chunk by chunk (memory stays at a few
        /// chunks whatever their size); smaller ones are read whole. Both use every core.
        public var streamingThreshold: UInt64 = SitePacker.parallelLimit
        /// Threads that read, hash and compress; 0: one per core. The archive's bytes do not depend on it.
        public var workers = 0
        /// Whole files a worker reads and hashes together at most, sixteen MD5s side by side
        /// (``MD5Lanes``); 1: one at a time. The archive's bytes do not depend on it.
        var batchFiles = 16 * MD5Lanes.count
        /// Whether MD5s are computed in lanes where the CPU can (AVX-512F) or always one by one.
        var laneHashing = MD5Lanes.isAvailable
        /// Memory the scan's list of files takes before it is sorted in spilled runs and parked in
        /// scratch files (``FolderScanner/runBytes``). The archive's bytes do not depend on it.
        var scanRunBytes = 8 << 20

        /// Makes options.
        public init(
            baseURL: String = "http://localhost/", outsideLinks: OutsideLinkPolicy = .refuse,
            skipUnreadable: Bool = false,
            overwrite: Bool = false, created: Date? = nil, compressionLevel: Int = SitePacker.defaultLevel,
            zstdLevel: Int? = nil
        ) {
            self.compressionLevel = compressionLevel
            self.zstdLevel = zstdLevel
            self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
            self.outsideLinks = outsideLinks
            self.skipUnreadable = skipUnreadable
            self.overwrite = overwrite
            self.created = created
        }
    }

    /// Where a response's `Last-Modified` comes from: the file's modification time, or a fixed
    /// time so that a copied or rebuilt folder (fresh modification times, same bytes) packs to the
    /// same archive.
    public enum LastModified: Sendable, Equatable {
        /// The file's modification time.
        case fileTime
        /// This time for every file, in seconds since 1970 (`pack --mtime`, as GNU tar's `--mtime`).
        case fixed(Int64)
        /// The file's modification time, or this time when the file is newer (`SOURCE_DATE_EPOCH`,
        /// as reproducible-builds.org recommends and GNU tar's `--clamp-mtime` does).
        case clamped(Int64)

        /// The seconds since 1970 a file modified at `fileTime` is sent as.
        public func seconds(forFileTime fileTime: Int64) -> Int64 {
            switch self {
            case .fileTime: fileTime
            case .fixed(let time): time
            case .clamped(let limit): min(fileTime, limit)
            }
        }
    }

    /// Why a pack did not start.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Entries the options do not allow, each listed.
        case refused([ScanProblem])
        /// Two files that map to one URL.
        case urlClash(first: String, second: String, url: String)
        /// A file whose size changed between the scan and its read so that it would now be, or no
        /// longer be, 8 KiB to 64 KiB long, as anchor candidates are (spec Appendix C step 13):
        /// the anchors were planned from the scan, so the archive would not be the one its keys
        /// give.
        case changedWhilePacking(path: String, scanned: UInt64, read: UInt64)

        public var description: String {
            switch self {
            case .refused(let problems):
                let outside = problems.contains { $0.kind == .linkOutside }
                let other = problems.contains { $0.kind != .linkOutside }
                var fixes: [String] = []
                if outside {
                    fixes.append("--follow-outside to include link targets or --skip-outside to leave them out")
                }
                if other { fixes.append("--skip-unreadable to leave out what cannot be read") }
                return "\(problems.count) entr\(problems.count == 1 ? "y" : "ies") cannot be packed as they stand: use "
                    + fixes.joined(separator: ", or ")
            case .urlClash(let first, let second, let url):
                return "\(first) and \(second) both map to \(url)"
            case .changedWhilePacking(let path, let scanned, let read):
                return
                    "\(path) changed while it was packed (\(scanned) bytes when the folder was scanned, \(read) when read): pack again"
            }
        }
    }

    /// What a pack did.
    public struct Summary: Sendable {
        public var files = 0
        public var responses = 0
        public var redirects = 0
        public var statistics = ArchiveWriter.Statistics()
        /// Entries left out by `--skip-outside` / `--skip-unreadable`.
        public var skipped: [ScanProblem] = []
        public var startURL: String?
    }

    /// Progress: files done, files in all, bytes done, bytes in all.
    public typealias Progress = (_ files: Int, _ totalFiles: Int, _ bytes: UInt64, _ totalBytes: UInt64) -> Void

    public let options: Options

    /// Makes a packer.
    public init(options: Options) { self.options = options }

    /// The level `pack` uses unless told: 1, the fast one, as `lz4` has it, because pack is meant
    /// to keep pace with `tar | lz4 -1`; with dictionaries it stores about as much as that at a
    /// fraction of LZ4HC's time (`Tools/bench/pack-bench.sh` compares them).
    public static let defaultLevel = 1
    /// The LZ4 level `--best` means: LZ4HC 12, as `lz4 --best` (anchors and what Zstandard does not shrink).
    public static let bestLevel = 12
    /// The Zstandard level `--best` adds (spec Appendix C step 15), as `zstd -19`.
    public static let bestZstdLevel = 19
    /// The group limit of `pack --best` (spec Appendix C step 16): libzim's cluster size, where
    /// Zstandard finds the most across pages.
    public static let bestGroups = 2 << 20
    /// Bodies per dictionary anchor unless told (spec Appendix C step 13).
    public static let defaultDictionaryInterval = 32

    /// Bodies up to this size are read whole; larger ones stream.
    public static let parallelLimit: UInt64 = 1 << 20
    /// Bytes of prepared bodies held at once.
    static let windowBytes: UInt64 = 12 << 20

    /// Scans `folder` and writes the archive to `output` atomically.
    ///
    /// - Throws: ``Failure`` before anything is written when entries are refused or URLs clash;
    ///   ``WebArcError`` for I/O problems (nothing is left at `output`).
    public func pack(folder: String, to output: String, progress: Progress? = nil) throws -> Summary {
        var summary = Summary()
        // The list of files and the pipeline's tables, which grow with the site, are let go of
        // when the bodies are in: the writer's trees and search index then have the memory.
        let (writer, startURL) = try addFiles(of: folder, to: output, summary: &summary, progress: progress)
        writer.metadata = ArchiveMetadata(
            created: options.created, creator: WebArcVersion.creator, startURL: startURL, baseURL: options.baseURL)
        try writer.finish()
        summary.statistics = writer.statistics
        summary.startURL = startURL
        return summary
    }

    /// Scans `folder` and adds every file's body and records to a new writer for `output`;
    /// returns it, not finished, and the archive's start URL.
    private func addFiles(
        of folder: String, to output: String, summary: inout Summary, progress: Progress?
    ) throws -> (ArchiveWriter, startURL: String?) {
        var scanner = FolderScanner(root: folder, outsideLinks: options.outsideLinks)
        scanner.runBytes = options.scanRunBytes
        try scanner.scan()
        summary.skipped = scanner.skippedLinks
        if !scanner.problems.isEmpty {
            let refused = scanner.problems.filter { $0.kind == .linkOutside || !options.skipUnreadable }
            guard refused.isEmpty else { throw Failure.refused(refused) }
            summary.skipped += scanner.problems
        }
        let files = scanner.files
        let pipeline = PackPipeline(
            files: files, spans: files.lazy.map { Self.responses(answering: $0.relativePath) },
            level: options.compressionLevel, zstdLevel: options.zstdLevel, placement: options.dictionaryPlacement,
            firstPosition: 0, wholeLimit: options.streamingThreshold, windowBytes: Self.windowBytes,
            batchFiles: options.batchFiles, laneHashing: options.laneHashing)
        if let groups = options.groups { pipeline.uncodedUpTo = groups }
        var opened: ArchiveWriter?
        let totalBytes = files.indices.reduce(UInt64(0)) { $0 + files.size(at: $1) }
        var doneBytes: UInt64 = 0
        // The anchor plan (a keyed plan needs the key of every position) is worked out while the
        // workers read and hash the first files. Keys are made again where needed rather than
        // kept: a list of every file's URL and key would grow with the site.
        let keyOf = try keyMaker()
        var anchors = AnchorPlan(interval: 0)
        do {
            // The workers read and code the first files while this thread checks that no two files
            // have one key; nothing is written before that holds.
            try pipeline.run(workers: options.workers > 0 ? options.workers : AvailableCores.count) {
                anchors = try anchorPlan(files: files, keyOf: keyOf)
                try files.checkReadable()
                return anchors
            } prepare: {
                try checkClashes(files: files, keyOf: keyOf)
                var writerOptions = ArchiveWriter.Options(
                    overwrite: options.overwrite, compressionLevel: options.compressionLevel,
                    dictionaryInterval: options.groups == nil ? options.dictionaryInterval : 0,
                    zstdLevel: options.zstdLevel)
                writerOptions.groups = options.groups
                writerOptions.anchorPlan = anchors
                // At most a body a file: the body table then never grows by copying itself.
                writerOptions.expectedBodies = files.count
                writerOptions.dictionaryPlacement = options.dictionaryPlacement
                let writer = try ArchiveWriter(path: output, options: writerOptions)
                opened = writer
                pipeline.lookUpStoredBodies(with: writer.storedBodyCheck)
            } commit: { index, output, slot in
                let writer = opened!
                // Made from the compact list once: each `files[index]` makes its strings again.
                let file = files[index]
                try files.checkReadable()
                let body: StoredBody
                switch output {
                case .prepared(let prepared):
                    body = try writer.addBody(prepared)
                case .likelyDuplicate(let bytes, let known):
                    body = try writer.addBody(likelyDuplicate: bytes, known: known)
                case .streamedDuplicate(let known, let length, let lastChunk):
                    body = try writer.addBody(
                        likelyDuplicateOf: file.readPath, known: known, length: length, lastChunk: lastChunk)
                case .streamed:
                    body = try writer.addBody(chunks: { try pipeline.nextChunk(of: slot) }, end: { slot.streamEnd! })
                }
                try Self.checkPlannedLength(file, read: body.length, anchors: anchors)
                let fileURL = url(for: file.relativePath)
                try addRecords(
                    for: file, at: fileURL, key: try keyOf(fileURL), body: body, writer: writer, summary: &summary)
                doneBytes += file.size
                summary.files = index + 1
                progress?(index + 1, files.count, doneBytes, totalBytes)
            }
        } catch {
            opened?.cancel()
            throw error
        }
        let writer = opened!
        try files.checkReadable()
        let startURL =
            files.contains { $0.relativePath == "index.html" }
            ? options.baseURL
            : files.first { $0.relativePath.hasSuffix(".html") }.map { url(for: $0.relativePath) }
        return (writer, startURL)
    }

    /// What makes the `GET` lookup key's bytes of a URL from ``url(for:)``.
    ///
    /// When the base URL is canonical (spec §9) and has no query or fragment, as the default and
    /// most bases are, canonicalizing such a URL changes nothing: ``url(for:)`` escapes exactly the
    /// bytes a canonical path escapes, in upper-case hex, a scanned path has no `.` or `..`
    /// segment, and the base ends with `/`. The key is then `GET `, the URL, and costs no
    /// canonicalization, which would run for every file on one core before the workers start.
    /// Any other base goes through ``URLKey/key(method:url:)``.
    func keyMaker() throws -> (String) throws -> [UInt8] {
        guard try keysArePlain() else {
            return { Array(try URLKey.key(method: "GET", url: $0).utf8) }
        }
        return Self.plainKey
    }

    /// Whether ``keyMaker()`` makes a file's key as `GET ` and its URL (see there).
    private func keysArePlain() throws -> Bool {
        let base = options.baseURL
        guard !base.utf8.contains(UInt8(ascii: "?")), !base.utf8.contains(UInt8(ascii: "#")) else { return false }
        return try URLKey.canonicalize(base) == base
    }

    /// `GET `, then the URL: the key of a URL from ``url(for:)`` under a plain base.
    private static func plainKey(_ url: String) -> [UInt8] {
        var key = Array("GET ".utf8)
        key.reserveCapacity(4 + url.utf8.count)
        key.append(contentsOf: url.utf8)
        return key
    }

    /// - Throws: ``Failure/urlClash(first:second:url:)`` for two files with one key.
    private func checkClashes(files: ScannedFiles, keyOf: (String) throws -> [UInt8]) throws {
        // Plain keys are the base and each path escaped byte by byte, `%` included: two paths
        // never share one, so there is nothing to check (and no table of every key to keep).
        guard try !keysArePlain() else { return }
        // Keyed by bytes: String equality would merge canonically equivalent Unicode.
        var pathsByKey: [KeyBytes: String] = [:]
        pathsByKey.reserveCapacity(files.count)
        for file in files {
            let key = try keyOf(url(for: file.relativePath))
            if let other = pathsByKey.updateValue(file.relativePath, forKey: KeyBytes(key)) {
                try files.checkReadable()
                throw Failure.urlClash(
                    first: other, second: file.relativePath, url: String(decoding: key.dropFirst(4), as: UTF8.self))
            }
        }
    }

    /// Which body positions are anchors: keyed by the key of the record each position's body
    /// answers (a folder's index.html takes two: its own URL's, then the folder's) and the body's
    /// length, or every `dictionaryInterval`-th.
    private func anchorPlan(files: ScannedFiles, keyOf: @escaping (String) throws -> [UInt8]) throws -> AnchorPlan {
        // Grouped bodies take no dictionaries (spec Appendix C step 16).
        guard let rule = options.anchorRule, options.dictionaryInterval > 0, options.groups == nil else {
            return AnchorPlan(interval: options.groups == nil ? options.dictionaryInterval : 0)
        }
        // The positions are listed lazily, and only a body of a candidate's length needs its key
        // (the rules hash no other): nothing per file outlives the plan.
        var failure: (any Error)?
        let bodies = files.lazy.flatMap { file -> [(key: [UInt8], length: UInt64)] in
            func key(_ relativePath: String) -> [UInt8] {
                guard AnchorPlan.candidateLengths.contains(file.size) else { return [] }
                do {
                    return try keyOf(url(for: relativePath))
                } catch {
                    failure = failure ?? error
                    return []
                }
            }
            guard Self.responses(answering: file.relativePath) == 2 else {
                return [(key(file.relativePath), file.size)]
            }
            let folder = String(file.relativePath.dropLast("index.html".count))
            return [(key(file.relativePath), file.size), (key(folder), file.size)]
        }
        let plan = AnchorPlan(interval: options.dictionaryInterval, bodies: bodies, rule: rule)
        if let failure { throw failure }
        return plan
    }

    /// Checks that a file read as `read` bytes is still what the anchor plan took it for from its
    /// scanned size (a keyed plan asks whether a body is 8 KiB to 64 KiB long).
    ///
    /// - Throws: ``Failure/changedWhilePacking(path:scanned:read:)`` when it is not.
    static func checkPlannedLength(_ file: ScannedFile, read: UInt64, anchors: AnchorPlan) throws {
        guard anchors.isKeyed,
            AnchorPlan.candidateLengths.contains(read) != AnchorPlan.candidateLengths.contains(file.size)
        else { return }
        throw Failure.changedWhilePacking(path: file.relativePath, scanned: file.size, read: read)
    }

    /// The response records a file answers: two for a folder's index.html (also folder/).
    static func responses(answering relativePath: String) -> Int {
        relativePath == "index.html" || relativePath.hasSuffix("/index.html") ? 2 : 1
    }

    /// The URL of a file: the base URL plus its percent-encoded relative path (each segment's
    /// bytes other than unreserved ones, sub-delimiters, `:` and `@` as `%XX`; `/` kept).
    public func url(for relativePath: String) -> String {
        var bytes = Array(options.baseURL.utf8)
        bytes.reserveCapacity(bytes.count + relativePath.utf8.count + 16)
        for byte in relativePath.utf8 {
            if byte == UInt8(ascii: "/") || Self.keptInSegment[Int(byte)] {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 15)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Bytes a path segment keeps as they are: unreserved, sub-delimiters, `:` and `@` (RFC 3986).
    private static let keptInSegment: [Bool] = {
        var kept = (0..<256).map { URLKey.isUnreserved(UInt8($0)) }
        for byte in "!$&'()*+,;=:@".utf8 { kept[Int(byte)] = true }
        return kept
    }()

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private func addRecords(
        for file: ScannedFile, at fileURL: String, key: [UInt8], body: StoredBody, writer: ArchiveWriter,
        summary: inout Summary
    ) throws {
        let name =
            file.relativePath.lastIndex(of: "/").map {
                String(file.relativePath[file.relativePath.index(after: $0)...])
            } ?? file.relativePath
        let mediaType = MediaTypes.mediaType(forFileName: name)
        let isText = MediaTypes.isText(mediaType)
        let headers = [
            HTTPHeader("Content-Type", isText ? "\(mediaType); charset=utf-8" : mediaType),
            HTTPHeader("Content-Length", String(body.length)),
            HTTPHeader("Last-Modified", HTTPDate.format(options.lastModified.seconds(forFileTime: file.modified))),
            HTTPHeader("ETag", body.reference.etag),
        ]
        func response(_ url: String) -> ResponseRecord {
            ResponseRecord(
                request: RequestRecord(url: url), status: 200, reason: "OK", headers: headers, mimeType: mediaType,
                textEncoding: isText ? "utf-8" : nil, body: body)
        }
        try writer.add(response(fileURL), key: key)
        summary.responses += 1
        if name == "index.html" {
            let folder = String(file.relativePath.dropLast("index.html".count))
            // The second response's body takes its own position (spec Appendix C step 13), as a
            // writer given each record with its body counts it.
            _ = try writer.addBody(repeating: body)
            try writer.add(response(url(for: folder)))
            summary.responses += 1
            if !folder.isEmpty {
                let bare = url(for: String(folder.dropLast()))
                try writer.add(
                    RedirectRecord(
                        request: RequestRecord(url: bare), status: 301, target: url(for: folder),
                        headers: [HTTPHeader("Location", url(for: folder)), HTTPHeader("Content-Length", "0")]))
                summary.redirects += 1
            }
        }
    }
}
