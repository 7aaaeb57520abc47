/// What `verify` found: every problem, not only the first, plus what it covered.
///
/// Spec: §11.3 Verification.
public struct VerificationReport: Sendable, Equatable {
    /// One problem found by a named check.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// How bad a problem is.
        public enum Severity: String, Sendable {
            /// The archive breaks the spec; verify fails.
            case error
            /// Worth knowing, not a breach (e.g. a redirect leaving the archive).
            case warning
        }

        /// The check that found it (`open`, `pages`, `trees`, …, `appendix`; spec §11.3 table).
        public var check: String
        /// The spec error code (Appendix A).
        public var code: String
        public var severity: Severity
        public var message: String
        /// Byte offset the problem points at (spec Appendix A).
        public var offset: UInt64?
        /// For a problem inside a decoded page (at `offset`), the byte position inside it.
        public var position: Int?
        /// The record concerned: its position in key order (0 for the first record of the tree).
        public var record: UInt32?
        /// URL of the record concerned.
        public var url: String?

        /// An error found by `check`.
        init(check: String, error: WebArcError, record: UInt32? = nil, url: String? = nil) {
            self.init(
                check: check, code: error.code, severity: .error, message: error.description, offset: error.offset,
                position: error.pagePosition, record: record, url: url)
        }

        /// Makes a problem.
        public init(
            check: String, code: String, severity: Severity, message: String, offset: UInt64? = nil,
            position: Int? = nil,
            record: UInt32? = nil, url: String? = nil
        ) {
            self.check = check
            self.code = code
            self.severity = severity
            self.message = message
            self.offset = offset
            self.position = position
            self.record = record
            self.url = url
        }

        public var description: String {
            var parts = ["\(severity.rawValue) [\(check)]"]
            if let record { parts.append("record \(record)") }
            if let url { parts.append(url) }
            return parts.joined(separator: " ") + ": " + message
        }
    }

    public var problems: [Problem] = []
    /// Records checked.
    public var records = 0
    /// Distinct bodies checked.
    public var bodies = 0
    /// Uncompressed body bytes re-hashed.
    public var bodyBytes: UInt64 = 0
    /// Checks run, in order.
    public var checks: [String] = []

    /// Whether no check found an error (warnings allowed).
    public var passed: Bool { !problems.contains { $0.severity == .error } }

    /// Adds an error found by `check`.
    mutating func add(_ check: String, _ error: WebArcError, record: UInt32? = nil, url: String? = nil) {
        problems.append(Problem(check: check, error: error, record: record, url: url))
    }

    /// Adds a warning: worth knowing, not a breach.
    mutating func warn(
        _ check: String, code: String, _ message: String, offset: UInt64? = nil, record: UInt32? = nil,
        url: String? = nil
    ) {
        problems.append(
            Problem(
                check: check, code: code, severity: .warning, message: message, offset: offset, record: record, url: url
            ))
    }
}
