import Foundation
import Synchronization

/// A fresh folder under the system temporary directory, removed when the value is dropped.
///
/// ```swift
/// let folder = try TemporaryFolder()
/// let input = try folder.write("site/index.html", "<h1>hello</h1>")
/// try ArchiveWriter(path: folder.file("site.webarc"))
/// ```
public final class TemporaryFolder: Sendable {
    /// The folder's absolute path.
    public let path: String

    /// Creates an empty folder with a unique name.
    public init() throws {
        path = NSTemporaryDirectory() + "webarc-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` (which may hold slashes) inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` in the folder, creating the folders it names, and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = URL(fileURLWithPath: file(name))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Writes `text` as UTF-8 to `name` in the folder, creating the folders it names, and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }

    /// The names in the folder, sorted.
    public func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

    /// A folder for a static fixture, which lives as long as the test process: a static is never
    /// deinitialized, so the folder is removed when the process exits instead.
    public static func forProcess() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        ProcessFolders.removeAtExit(folder.path)
        return folder
    }
}

/// Folders removed when the test process exits (`atexit`).
private enum ProcessFolders {
    private static let paths = Mutex<[String]>([])
    private static let handler: Void = { atexit { ProcessFolders.removeAll() } }()

    static func removeAtExit(_ path: String) {
        _ = handler
        paths.withLock { $0.append(path) }
    }

    private static func removeAll() {
        for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
