import WebArc

extension InteropError {
    /// The kind of failure, decided by the case (for `io` by the operation's kind, for `archive`
    /// by the wrapped error's category), never by the message.
    public var category: ErrorCategory {
        switch self {
        case .unknownFormat, .truncatedGzip, .badGzip, .decompressedTooLarge, .badWARCHeader, .truncatedRecord,
            .contentLengthMismatch, .missingHTTPHeaders, .badHTTPMessage, .badChunkedEncoding, .badURL, .badJSON,
            .badHAREntry,
            .badPropertyList, .badWebArchive, .badZIP, .badWACZ, .waczDigestMismatch:
            .malformedData
        case .io(_, let operation, _): operation.kind.category
        case .archive(let error, _): error.category
        case .pageNotFound, .noPage, .zimNeedsLibzim: .badArgument
        }
    }
}
