import Foundation

/// The repository's root folder: the nearest folder above this file that holds `Package.swift`.
/// Tests reach the spec's vectors, the tools and the fixtures of other test targets through it.
public let repositoryRoot: URL = {
    let file = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    var folder = file.deletingLastPathComponent()
    while folder.path != "/" {
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            return folder
        }
        folder = folder.deletingLastPathComponent()
    }
    return file.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}()

/// The system's `python3` (Debian's, or one in `/usr/local`); nil when there is none, so that the
/// tests that need it skip with a reason.
public let python3: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}
