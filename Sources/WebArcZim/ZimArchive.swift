import CZimShim
import Foundation
import WebArc

/// A ZIM file open for reading through libzim, its header checked first (``ZimHeader``).
///
/// ```swift
/// let zim = try ZimArchive(path: "python.zim")
/// let main = try zim.mainEntry().map { try zim.entry($0).path }
/// try zim.readItem(3, maxSize: 1 << 30) { bytes in print(bytes.count) }
/// ```
///
/// Reading is thread-safe in libzim; this wrapper adds no state. Every failure is a ``ZimError``
/// naming the file and, where one is concerned, the entry.
public final class ZimArchive: @unchecked Sendable {
    /// The path as given.
    public let path: String
    /// The checked header.
    public let header: ZimHeader
    /// The file's size in bytes.
    public let fileSize: UInt64
    /// Indexes of the user entries (the `C` namespace; all entries in an old-scheme ZIM).
    public let userEntries: Range<UInt32>
    /// Whether the file uses libzim 7's namespace scheme (user entries in `C`, metadata in `M`).
    public let hasNewNamespaceScheme: Bool
    private let handle: OpaquePointer

    /// Checks the header against the file, then opens the file with libzim.
    ///
    /// - Throws: ``ZimError/io(path:operation:errno:)`` when the file cannot be read;
    ///   `notAZim`, `truncated`, `badHeader` from the header and cluster checks; `libzim` when
    ///   libzim refuses it.
    public init(path: String) throws {
        self.path = path
        (header, fileSize) = try Self.checkedHeader(path)
        try ZimClusterReader.checkClusters(path: path, header: header)
        var error: UnsafeMutablePointer<CChar>?
        guard let handle = zs_archive_open(path, &error) else { throw Self.failure(error, file: path, entry: nil) }
        self.handle = handle
        var begin: UInt32 = 0
        var end: UInt32 = 0
        var all: UInt32 = 0
        guard zs_archive_ranges(handle, &begin, &end, &all, &error) == 0 else {
            zs_archive_close(handle)
            throw Self.failure(error, file: path, entry: nil)
        }
        guard begin <= end, end <= all, all == header.entryCount else {
            zs_archive_close(handle)
            throw ZimError.badHeader(
                file: path, reason: "user entries \(begin)..<\(end) do not fit \(header.entryCount) entries")
        }
        userEntries = begin..<end
        hasNewNamespaceScheme = zs_archive_new_namespace_scheme(handle) == 1
    }

    deinit { zs_archive_close(handle) }

    /// One entry's path, kind and, when asked, title, mime type, cluster and size.
    public struct Entry: Sendable, Equatable {
        /// The entry's index (path order, all namespaces).
        public var index: UInt32
        /// Its path, without namespace in a new-scheme ZIM.
        public var path: String
        /// Its title, when asked for (nil otherwise, or when libzim gives none).
        public var title: String?
        /// For an item (nil for a redirect).
        public var mimeType: String?
        /// For a redirect: the entry it points to.
        public var redirectIndex: UInt32?
        /// For an item: its cluster (items of one cluster are read fastest together).
        public var cluster: UInt32
        /// For an item: its size in bytes (0 unless asked).
        public var size: UInt64

        /// Whether the entry is a redirect.
        public var isRedirect: Bool { redirectIndex != nil }
    }

    /// Reads entry `index`: its path and kind; its title when `title`; an item's mime type and
    /// cluster when `item`, and its size when `size` (which reads the cluster's blob offsets).
    ///
    /// - Throws: ``ZimError/libzim(file:entry:message:)`` when libzim cannot read it.
    public func entry(_ index: UInt32, title: Bool = false, item: Bool = true, size: Bool = true) throws -> Entry {
        var raw = zs_entry()
        var error: UnsafeMutablePointer<CChar>?
        let what =
            (title ? Int32(ZS_ENTRY_TITLE) : 0) | (item ? Int32(ZS_ENTRY_ITEM) : 0) | (size ? Int32(ZS_ENTRY_SIZE) : 0)
        guard zs_archive_entry(handle, index, what, &raw, &error) == 0 else {
            throw Self.failure(error, file: path, entry: "#\(index)")
        }
        defer { zs_entry_clear(&raw) }
        guard index < header.entryCount, raw.is_redirect == 0 || raw.redirect_index < header.entryCount else {
            throw ZimError.libzim(
                file: path, entry: "#\(index)", message: "redirect to entry \(raw.redirect_index), not an entry")
        }
        return Entry(
            index: index, path: raw.path.map { String(cString: $0) } ?? "",
            title: raw.title.map { String(cString: $0) },
            mimeType: raw.mimetype.map { String(cString: $0) },
            redirectIndex: raw.is_redirect != 0 ? raw.redirect_index : nil,
            cluster: raw.cluster, size: raw.size)
    }

    /// The main page's entry index, or nil when the ZIM names none.
    public func mainEntry() throws -> UInt32? {
        var index: UInt32 = 0
        var error: UnsafeMutablePointer<CChar>?
        switch zs_archive_main_entry(handle, &index, &error) {
        case 1: return index < header.entryCount ? index : nil
        case 0: return nil
        default: throw Self.failure(error, file: path, entry: "the main page")
        }
    }

    /// The names of the metadata (`M` namespace), in path order.
    public func metadataNames() throws -> [String] {
        var names: UnsafeMutablePointer<CChar>?
        var length = 0
        var count = 0
        var error: UnsafeMutablePointer<CChar>?
        guard zs_archive_metadata_names(handle, &names, &length, &count, &error) == 0, let names else {
            throw Self.failure(error, file: path, entry: "the metadata list")
        }
        defer { zs_free(names) }
        let bytes = UnsafeRawBufferPointer(start: names, count: length)
        return bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// The bytes of metadata `name`, or nil when absent.
    ///
    /// - Throws: ``ZimError/libzim(file:entry:message:)`` when it cannot be read or holds more than `maxSize` bytes.
    public func metadata(_ name: String, maxSize: UInt64) throws -> [UInt8]? {
        var blob = zs_blob()
        var error: UnsafeMutablePointer<CChar>?
        switch zs_archive_metadata(handle, name, maxSize, &blob, &error) {
        case 1:
            defer { zs_blob_release(&blob) }
            return Array(UnsafeRawBufferPointer(start: blob.data, count: Int(blob.size)))
        case 0: return nil
        default: throw Self.failure(error, file: path, entry: "M/\(name)")
        }
    }

    /// Calls `body` with the whole of item `entry` (of `entry.size` bytes, as
    /// ``entry(_:title:item:size:)`` gave it with its size) as libzim holds it: a part of its
    /// decompressed cluster, or of the mapped file.
    ///
    /// - Throws: ``ZimError/entryTooLarge(file:entry:size:limit:)`` when `size` is over `maxSize`,
    ///   before anything is read; `libzim` when libzim cannot read it or gives another length.
    public func readItem<T>(_ entry: Entry, maxSize: UInt64, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard entry.size <= maxSize else {
            throw ZimError.entryTooLarge(file: path, entry: entry.path, size: entry.size, limit: maxSize)
        }
        var blob = zs_blob()
        var error: UnsafeMutablePointer<CChar>?
        guard zs_archive_item_data(handle, entry.index, 0, entry.size, &blob, &error) == 0 else {
            throw Self.failure(error, file: path, entry: entry.path)
        }
        defer { zs_blob_release(&blob) }
        guard blob.size == entry.size, entry.size == 0 || blob.data != nil else {
            throw ZimError.libzim(
                file: path, entry: entry.path, message: "read \(blob.size) of its \(entry.size) bytes")
        }
        return try body(UnsafeRawBufferPointer(start: blob.data, count: Int(blob.size)))
    }

    /// Reads and checks the header of the file at `path`.
    static func checkedHeader(_ path: String) throws -> (ZimHeader, UInt64) {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw ZimError.io(path: path, operation: .opening("open"), errno: errno)
        }
        defer { try? file.close() }
        let size: UInt64
        let bytes: [UInt8]
        do {
            size = try file.seekToEnd()
            try file.seek(toOffset: 0)
            bytes = Array(try file.read(upToCount: ZimHeader.size) ?? Data())
        } catch {
            throw ZimError.io(
                path: path, operation: .opening("read"),
                errno: (error as NSError).code == 0 ? EIO : Int32((error as NSError).code))
        }
        let header = try ZimHeader(parsing: bytes, file: path)
        try header.validate(fileSize: size, file: path)
        return (header, size)
    }

    /// The error for a failed shim call, its message freed.
    static func failure(_ error: UnsafeMutablePointer<CChar>?, file: String, entry: String?) -> ZimError {
        defer { zs_free(error) }
        return ZimError.libzim(file: file, entry: entry, message: error.map { String(cString: $0) } ?? "unknown error")
    }
}
