import CZimShim

/// A ZIM being written through libzim's `Creator`: items, redirects and metadata, then ``finish()``.
///
/// libzim compresses clusters (Zstandard) and builds the title index, and the full-text index
/// when a language is given, on its own worker threads; it writes `path`.tmp (and index files
/// beside it) and renames it to `path` when it finishes. Dropping an unfinished creator removes
/// the temporary file.
final class ZimCreator {
    private let handle: OpaquePointer
    /// The file errors name: the output the ZIM becomes, not its temporary path.
    private let name: String

    /// Starts writing at `path`.
    ///
    /// - Parameters:
    ///   - name: the file errors name.
    ///   - indexLanguage: the ISO 639-3 language of the full-text index; nil for none.
    /// - Throws: ``ZimError/libzim(file:entry:message:)`` when libzim cannot start (the folder is not writable).
    init(path: String, reportedAs name: String, indexLanguage: String?, clusterSize: UInt64 = 0) throws {
        self.name = name
        var error: UnsafeMutablePointer<CChar>?
        let started: OpaquePointer? = indexLanguage.withOptionalCString { language in
            var options = zs_creator_options(
                uncompressed: 0, cluster_size: clusterSize, index_language: language, workers: 0)
            return zs_creator_start(path, &options, &error)
        }
        guard let started else { throw ZimArchive.failure(error, file: name, entry: nil) }
        handle = started
    }

    deinit { zs_creator_free(handle) }

    /// Sets the path of the main page.
    func setMainPath(_ mainPath: String) { zs_creator_set_main_path(handle, mainPath) }

    /// Adds metadata `name` (a `text/plain;charset=utf-8` text unless `mimeType` says otherwise).
    func addMetadata(_ name: String, _ bytes: [UInt8], mimeType: String = "text/plain;charset=utf-8") throws {
        try check(name) { error in
            bytes.withUnsafeBytes { zs_creator_add_metadata(handle, name, $0.baseAddress, $0.count, mimeType, &error) }
        }
    }

    /// Adds an item (its bytes are copied); a front article is listed in titles and suggestions.
    func addItem(
        path: String, title: String, mimeType: String, bytes: UnsafeRawBufferPointer, frontArticle: Bool
    ) throws {
        try check(path) { error in
            zs_creator_add_item(
                handle, path, title, mimeType, bytes.baseAddress, bytes.count, frontArticle ? 1 : 0, &error)
        }
    }

    /// Adds a redirect from `path` to `target`.
    func addRedirect(path: String, title: String, target: String) throws {
        try check(path) { error in zs_creator_add_redirect(handle, path, title, target, &error) }
    }

    /// Writes the pointer lists, the indexes and the checksum, and renames the file into place.
    func finish() throws {
        try check(nil) { error in zs_creator_finish(handle, &error) }
    }

    private func check(_ entry: String?, _ call: (inout UnsafeMutablePointer<CChar>?) -> Int32) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard call(&error) == 0 else { throw ZimArchive.failure(error, file: name, entry: entry) }
    }
}

extension Optional where Wrapped == String {
    /// Calls `body` with a C string, or NULL when nil.
    fileprivate func withOptionalCString<T>(_ body: (UnsafePointer<CChar>?) -> T) -> T {
        switch self {
        case .some(let text): text.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
