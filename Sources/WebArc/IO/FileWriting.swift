#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing through a file descriptor, in one place for every writer: the loop that writes all of
/// a run of bytes (`write(2)` and `pwrite(2)` may write less than asked, or be interrupted), and
/// the rename that puts a finished temporary file in place.
///
/// Errors come back as an `errno`, so that each caller wraps them in its own error with its own
/// context (the archive writer's temporary file, stdout, a body spool).
package enum FileWriting {
    /// Writes all of `bytes` to `descriptor`: at `offset` (`pwrite`, the file position unchanged)
    /// or at the file position (`write`), again after a short write or `EINTR`.
    ///
    /// - Returns: nil, or the `errno` of the write that failed (`EIO` for one that wrote nothing).
    package static func writeAll(
        _ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: UInt64? = nil
    ) -> Int32? {
        var done = 0
        while done < bytes.count {
            let wrote =
                if let offset {
                    pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
                } else {
                    Platform.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { return wrote < 0 ? errno : EIO }
            done += wrote
        }
        return nil
    }

    /// Writes all of `bytes` to `descriptor`, at `offset` or at the file position.
    ///
    /// - Returns: nil, or the `errno` of the write that failed.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32, at offset: UInt64? = nil) -> Int32? {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor, at: offset) }
    }

    /// Renames the complete file `temporary` onto `target`, replacing a file there in one step;
    /// when that fails, removes `temporary`. Syncs nothing: a caller that wants the file durable
    /// syncs it before, and its folder after.
    ///
    /// - Throws: ``WebArcError/io(path:operation:errno:)`` naming `target` ("rename onto").
    package static func rename(_ temporary: String, onto target: String) throws {
        #if canImport(Glibc)
        let renamed = Glibc.rename(temporary, target) == 0
        #else
        let renamed = Darwin.rename(temporary, target) == 0
        #endif
        guard renamed else {
            let code = errno
            unlink(temporary)
            throw WebArcError.io(path: target, operation: .creating("rename onto"), errno: code)
        }
    }
}
