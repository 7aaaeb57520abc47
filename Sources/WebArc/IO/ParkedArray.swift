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
    /// - Throws: `io` when the file cannot be read; `truncated` when it is shorter than what was
    ///   written.
    func restore() throws -> [Element] {
        try [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            try FileByteSource.read(
                file.descriptor, at: 0, into: UnsafeMutableRawBufferPointer(buffer), path: file.path)
            initialized = count
        }
    }
}
