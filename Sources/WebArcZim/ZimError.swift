import WebArc

/// Everything that can stop a ZIM import or export, with the file, entry or offset to look at.
///
/// `description` is one line: what, where, then the fix when there is one.
public enum ZimError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not start with the ZIM magic number.
    case notAZim(file: String)
    /// The header is shorter than 80 bytes, or the file ends before what the header describes.
    case truncated(file: String, what: String, needed: UInt64, size: UInt64)
    /// A header field or a table that cannot be right (a position outside the file, a count that
    /// cannot fit).
    case badHeader(file: String, reason: String)
    /// libzim refused the file or an entry (its message, and the entry when one is concerned).
    case libzim(file: String, entry: String?, message: String)
    /// An entry larger than the most an import reads into memory at once.
    case entryTooLarge(file: String, entry: String, size: UInt64, limit: UInt64)
    /// A system call failed on a path.
    case io(path: String, operation: IOOperation, errno: Int32)
    /// An error from the archive library, with the archive path it concerns.
    case archive(WebArcError, path: String)

    /// A short stable name for the case, for tests and `--json` output.
    public var code: String {
        switch self {
        case .notAZim: "not-a-zim"
        case .truncated: "truncated-zim"
        case .badHeader: "bad-zim-header"
        case .libzim: "bad-zim"
        case .entryTooLarge: "zim-entry-too-large"
        case .io: "io"
        case .archive(let error, _): error.code
        }
    }

    /// One lower-case line: what is wrong, in which file and, where one is concerned, which entry.
    public var description: String {
        switch self {
        case .notAZim(let file): "\(file) is not a ZIM file (no ZIM magic number at its start)"
        case .truncated(let file, let what, let needed, let size):
            "\(file) is truncated: \(what) needs \(needed) bytes, the file has \(size)"
        case .badHeader(let file, let reason): "bad ZIM header in \(file): \(reason)"
        case .libzim(let file, let entry, let message):
            "libzim cannot read \(file)" + (entry.map { " at entry \($0)" } ?? "") + ": \(message)"
        case .entryTooLarge(let file, let entry, let size, let limit):
            "entry \(entry) of \(file) holds \(size) bytes, more than the \(limit) bytes an import reads into memory"
                + " at once: raise the limit with --max-entry-size"
        case .io(let path, let operation, let errno):
            WebArcError.io(path: path, operation: operation, errno: errno).description
        case .archive(let error, let path): error.description.contains(path) ? error.description : "\(path): \(error)"
        }
    }
}

extension ZimError {
    /// The kind of failure, decided by the case, never by the message.
    public var category: ErrorCategory {
        switch self {
        case .notAZim, .truncated, .badHeader, .libzim, .entryTooLarge: .malformedData
        case .io(_, let operation, _): operation.kind.category
        case .archive(let error, _): error.category
        }
    }
}
