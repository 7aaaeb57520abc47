import Dispatch
import Foundation
import WebArc

/// Reads a WACZ (WACZ 1.1.1: a ZIP of WARCs with a package manifest and a page list) in place:
/// the WARCs under `archive/` are scanned by the ``WARCImporter`` through windows on the ZIP, with
/// nothing extracted; `datapackage.json` gives every file's size and digest, checked on a second
/// thread while the WARCs are scanned; `pages/pages.jsonl` gives the start page (unless the package
/// names a `mainPageURL`) and page titles. The CDXJ indexes are not read: the scan reads every
/// record anyway, and an index may leave records out.
///
/// Spec: `Spec/interop.md` §12; WACZ 1.1.1.
enum WACZImporter {
    /// The folder whose files are WARCs.
    static let archiveFolder = "archive/"
    /// The page list a reader opens first.
    static let pagesPath = "pages/pages.jsonl"
    /// The most text of page titles kept in the archive's metadata (`pages` entry).
    static let maxPagesMetadata = 1 << 20

    /// Scans every WARC of the WACZ at `file` into `warc` and returns the records read.
    ///
    /// - Throws: ``InteropError/badZIP(file:reason:)``, ``InteropError/badWACZ(file:reason:)``,
    ///   ``InteropError/waczDigestMismatch(file:member:declared:computed:)`` (before any WARC error,
    ///   when both happen); the WARC errors of ``WARCImporter/scan(window:isGzip:context:)``; `io`.
    static func scan(_ file: InputFile, into warc: WARCImporter, context: ImportContext) throws -> Int {
        let zip = try ZIPReader(file: file)
        let path = file.path
        func bad(_ reason: String) -> InteropError { .badWACZ(file: path, reason: reason) }

        guard let packageEntry = zip.entry("datapackage.json") else {
            throw bad("it holds no datapackage.json (a ZIP, but not a WACZ)")
        }
        let packageBytes = try zip.contents(of: packageEntry, limit: WACZPackage.maxJSONBytes)
        let package: WACZPackage
        do { package = try WACZPackage(parsing: packageBytes) } catch { throw bad(error.reason) }
        if let entry = zip.entry("datapackage-digest.json") {
            let object = WACZPackage.json(try zip.contents(of: entry, limit: 1 << 20)) as? [String: Any]
            guard let text = object?["hash"] as? String else { throw bad("datapackage-digest.json has no \"hash\"") }
            let declared: WACZDigest
            do { declared = try WACZDigest(parsing: text) } catch {
                throw bad("datapackage-digest.json: \(error.reason)")
            }
            var hasher = declared.algorithm.hasher()
            hasher.update(packageBytes)
            let computed = hasher.finalize()
            guard computed == declared else {
                throw InteropError.waczDigestMismatch(
                    file: path, member: "datapackage.json", declared: declared.description,
                    computed: computed.description)
            }
        }

        var checks: [WACZDigestCheck.Item] = []
        for resource in package.resources {
            let name = ZIPEntry.shown(resource.path)
            guard let entry = zip.entry(resource.path) else {
                throw bad("datapackage.json lists \"\(name)\", which the ZIP does not hold")
            }
            if let bytes = resource.bytes, bytes != entry.size {
                throw bad("datapackage.json says \"\(name)\" is \(bytes) bytes; the ZIP holds \(entry.size)")
            }
            do {
                checks.append(WACZDigestCheck.Item(entry: entry, digest: try WACZDigest(parsing: resource.hash)))
            } catch {
                throw bad("datapackage.json resource \"\(name)\": \(error.reason)")
            }
        }
        let digests = WACZDigestCheck(zip: zip, items: checks)

        let warcs = zip.entries.filter {
            $0.name.hasPrefix(archiveFolder) && !$0.isDirectory && $0.name.count > archiveFolder.count
        }
        var windows: [(window: InputFile, isGzip: Bool)] = []
        do {
            try readPages(zip, package: package, context: context)
            for entry in warcs {
                let name = ZIPEntry.shown(entry.name)
                guard entry.method == ZIPEntry.stored else {
                    throw bad(
                        "\"\(name)\" is stored deflated, not as it is (WACZ stores WARCs uncompressed in the ZIP so that they "
                            + "can be read in place): unzip it and import the WARC")
                }
                let window = try zip.window(of: entry)
                let head = try window.read(at: 0, count: 5)
                if head.starts(with: [0x1F, 0x8B]) {
                    windows.append((window, true))
                } else if head == Array("WARC/".utf8) {
                    windows.append((window, false))
                } else if !head.isEmpty {
                    throw bad("\"\(name)\" is neither a WARC nor a gzip WARC")
                }
            }
            var records = 0
            for (window, isGzip) in windows {
                records += try warc.scan(window: window, isGzip: isGzip, context: context)
            }
            try digests.wait()
            return records
        } catch {
            // A damaged file explains the errors found in it: its digest comes first.
            try digests.wait()
            throw error
        }
    }

    /// Takes the start page and page titles from the page lists (`pages/*.jsonl`, `pages.jsonl`
    /// first) and the collection's title and description from the package.
    private static func readPages(_ zip: ZIPReader, package: WACZPackage, context: ImportContext) throws {
        let lists = zip.entries.filter { $0.name.hasPrefix("pages/") && $0.name.hasSuffix(".jsonl") }
            .sorted { ($0.name == pagesPath ? 0 : 1, $0.name) < ($1.name == pagesPath ? 0 : 1, $1.name) }
        var pages: [WACZPage] = []
        for entry in lists {
            let bytes = try zip.contents(of: entry, limit: WACZPackage.maxJSONBytes)
            do throws(WACZProblem) {
                pages += try WACZPage.parseList(bytes, name: entry.name)
            } catch {
                throw InteropError.badWACZ(file: zip.file.path, reason: error.reason)
            }
        }
        if context.startURL == nil, let start = package.mainPageURL ?? pages.first?.url { context.startURL = start }
        if let title = package.title { context.metadataEntries.append(ArchiveMetadata.Entry("title", title)) }
        if let description = package.description {
            context.metadataEntries.append(ArchiveMetadata.Entry("description", description))
        }
        var text: [UInt8] = []
        var seen = Set<String>()
        for page in pages where page.title != nil && seen.insert(page.url).inserted {
            var object: [String: Any] = ["url": page.url, "title": page.title ?? ""]
            if let ts = page.ts { object["ts"] = ts }
            let line = WACZPackage.serialized(object) + [0x0A]
            guard text.count + line.count <= maxPagesMetadata else { break }
            text += line
        }
        if !text.isEmpty {
            context.metadataEntries.append(
                ArchiveMetadata.Entry("pages", String(decoding: text.dropLast(), as: UTF8.self)))
        }
    }
}

/// Hashes the files `datapackage.json` lists on a thread of its own while the import scans the
/// WARCs, reading them a second time in place (the page cache makes that second read nearly free).
final class WACZDigestCheck: @unchecked Sendable {
    /// One file and the digest it must have.
    struct Item: Sendable {
        var entry: ZIPEntry
        var digest: WACZDigest
    }

    private let group = DispatchGroup()
    /// Written by the worker before it leaves the group, read after ``wait()``.
    private var failure: InteropError?

    /// Starts hashing `items`.
    init(zip: ZIPReader, items: [Item]) {
        group.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            defer { group.leave() }
            failure = Self.check(zip: zip, items: items)
        }
    }

    /// Waits for the hashing to end.
    ///
    /// - Throws: the first file's ``InteropError/waczDigestMismatch(file:member:declared:computed:)``,
    ///   or the error that stopped its reading.
    func wait() throws {
        group.wait()
        if let failure { throw failure }
    }

    private static func check(zip: ZIPReader, items: [Item]) -> InteropError? {
        for item in items {
            var hasher = item.digest.algorithm.hasher()
            do {
                // The digest covers a stored file; a deflated one also has its CRC-32 checked.
                try zip.forEachPiece(of: item.entry, checkingCRC: item.entry.method != ZIPEntry.stored) {
                    hasher.update($0)
                }
            } catch let error as InteropError {
                return error
            } catch {
                return .badZIP(file: zip.file.path, reason: "\(error)")
            }
            let computed = hasher.finalize()
            if computed != item.digest {
                return .waczDigestMismatch(
                    file: zip.file.path, member: item.entry.name, declared: item.digest.description,
                    computed: computed.description)
            }
        }
        return nil
    }
}
