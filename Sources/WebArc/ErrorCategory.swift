/// The kind of failure an error is, for the edges that report failures by kind: `webarc`'s exit
/// code (sysexits), a status, a log level.
///
/// Every ``WebArcError`` case has exactly one category, given by an exhaustive switch: a new case
/// cannot compile without one, and rewording a message can never move an error to another.
public enum ErrorCategory: Hashable, Sendable {
    /// The archive or input breaks its format, fails verification, or is not trusted.
    case malformedData
    /// An input is missing, unreadable, or not the kind of file asked for.
    case missingInput
    /// The output exists, or cannot be created where it was asked for.
    case cannotCreateOutput
    /// Reading or writing an open file failed.
    case ioFailure
    /// A value the caller gave (a URL, a record) cannot be used as given.
    case badArgument
    /// The library was misused or reached a state it should not (a closed writer, a range past a body).
    case internalFailure
}

extension IOOperation.Kind {
    /// The category of a failed step of this kind.
    public var category: ErrorCategory {
        switch self {
        case .openInput: .missingInput
        case .createOutput: .cannotCreateOutput
        case .transfer: .ioFailure
        }
    }
}

extension WebArcError {
    /// The kind of failure, decided by the case (and for ``io(path:operation:errno:)`` by the
    /// operation's kind), never by the message.
    public var category: ErrorCategory {
        switch self {
        case .empty, .notAnArchive, .truncated, .unsupportedVersion, .badAppendix, .trailerChecksum, .badTrailer,
            .unsupportedFeature, .pageDigest, .corruptPage, .corruptIndex, .badTotals, .duplicateKey,
            .unsupportedCodec,
            .corruptChunk,
            .chunkDigest, .amplification, .bodyDigest, .badLayout, .sharedExtent, .badBase, .badTarget, .badCompact,
            .baseRequired, .unsigned,
            .untrustedKey, .badSignature, .expired, .rolledBack, .badKeyFile, .keyIDMismatch, .badRollbackState:
            .malformedData
        // A body missing from the page that names it is a malformed archive; one a caller asked
        // for that the archive does not hold is a misuse.
        case .bodyNotFound(_, let page): page == nil ? .internalFailure : .malformedData
        // The option asked for cannot carry this change: the command line has to change.
        case .badURL, .invalidRecord, .compactTooLarge: .badArgument
        case .writerClosed, .rangeOutOfBounds: .internalFailure
        case .outputExists: .cannotCreateOutput
        case .io(_, let operation, _): operation.kind.category
        }
    }
}
