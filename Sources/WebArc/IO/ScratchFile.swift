import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file in the temporary folder (`TMPDIR`) for bytes that do not fit in memory: a body being
/// imported or recorded, a download read in place. Closed, and removed, when released.
///
/// Written with `FileWriting.writeAll` through ``descriptor``.
package final class ScratchFile: Sendable {
    /// The open file, readable and writable.
    package let descriptor: Int32
    /// Where it is (`TMPDIR/PREFIX-XXXXXX`); nothing is there any more when it was made `unlinked`.
    package let path: String
    private let unlinked: Bool

    /// Creates a file only this user may read, named `prefix` and six random characters.
    ///
    /// - Parameter unlinked: removes the name at once, so that nothing is left behind even when
    ///   the process is killed; the file is then reached through ``descriptor`` alone.
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` when the temporary folder has no room
    ///   or no such folder.
    package init(prefix: String, unlinked: Bool = false) throws {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard fd >= 0 else {
            throw WebArcError.io(path: path, operation: .creating("create temporary file"), errno: errno)
        }
        if unlinked { unlink(path) }
        descriptor = fd
        self.unlinked = unlinked
    }

    deinit {
        close(descriptor)
        if !unlinked { unlink(path) }
    }
}
