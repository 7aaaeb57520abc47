#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An array of plain values moved to an unlinked scratch file while a stage that does not read it
/// runs, and read back after: a table of a few bytes a record (a writer's body table, an apply's
/// record entries) then takes no memory while the search index is built.
struct ParkedArray<Element: BitwiseCopyable> {
    private let file: ScratchFile
    /// Elements parked.
    let count: Int

    /// Writes `array`'s elements to a new scratch file named after `prefix`.
    ///
    /// - Throws: `io` when the file cannot be made or written.
    init(_ array: [Element], prefix: String) throws {
        file = try ScratchFile(prefix: prefix, unlinked: true)
        count = array.count
        if let code = array.withUnsafeBytes({ FileWriting.writeAll($0, to: file.descriptor, at: 0) }) {
            throw WebArcError.io(path: file.path, operation: .transferring("write"), errno: code)
        }
    }

    /// Moves `array`'s elements to a new scratch file, leaving `array` empty.
    ///
    /// - Throws: `io` when the file cannot be made or written; `array` is then left as it was.
    static func moving(_ array: inout [Element], prefix: String) throws -> ParkedArray {
        let parked = try ParkedArray(array, prefix: prefix)
        array = []
        return parked
    }

    /// The parked elements, read back in one array of exactly their count.
    ///
    /// - Throws: `io` when the file cannot be read or is shorter than what was written.
    func restore() throws -> [Element] {
        let byteCount = count * MemoryLayout<Element>.stride
        var failure: Int32?
        let array = [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var done = 0
            while done < byteCount {
                let got = pread(file.descriptor, raw.baseAddress! + done, byteCount - done, off_t(done))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else {
                    failure = got < 0 ? errno : EIO
                    break
                }
                done += got
            }
            initialized = failure == nil ? count : 0
        }
        if let failure {
            throw WebArcError.io(path: file.path, operation: .transferring("read back"), errno: failure)
        }
        return array
    }
}
