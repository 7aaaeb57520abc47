import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The time every packed file is given (`pack --mtime`): an ISO 8601 date (`2027-01-01`, midnight
/// UTC) or date-time (`2027-01-01T12:00:00Z`), or `@SECONDS` since 1970 (`@$SOURCE_DATE_EPOCH`).
/// Relative forms (`+30d`) are refused: they would make every pack differ.
struct FixedTimeArgument: ExpressibleByArgument {
    /// Seconds since 1970, whole (a fraction is dropped: HTTP dates count seconds).
    let seconds: Int64

    init?(argument: String) {
        if argument.hasPrefix("@") {
            guard let seconds = SourceDateEpoch.seconds(argument.dropFirst()) else { return nil }
            self.seconds = seconds
            return
        }
        guard !argument.hasPrefix("+"), let date = DateArgument(argument: argument)?.date else { return nil }
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds >= 0, seconds <= Double(SourceDateEpoch.latest) else { return nil }
        self.seconds = Int64(seconds)
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// `SOURCE_DATE_EPOCH` (reproducible-builds.org): the time a reproducible build stands for, in
/// whole seconds since 1970.
enum SourceDateEpoch {
    /// The variable's name.
    static let name = "SOURCE_DATE_EPOCH"
    /// The latest time an HTTP date's four-digit year can name: 9999-12-31T23:59:59Z.
    static let latest: Int64 = 253_402_300_799

    /// The variable's value; nil when it is unset or empty.
    ///
    /// - Throws: ``CommandFailure`` (exit 64) naming the variable when it is not whole seconds
    ///   from 0 to ``latest``.
    static func read() throws -> Int64? {
        guard let raw = getenv(name) else { return nil }
        let text = String(cString: raw)
        if text.isEmpty { return nil }
        guard let seconds = seconds(Substring(text)) else {
            throw CommandFailure(
                "\(name) must be whole seconds since 1970 (0 to \(latest)), got '\(text)': fix or unset it",
                code: ExitCodes.usage)
        }
        return seconds
    }

    /// Where each response's `Last-Modified` comes from: `mtime` (from `--mtime`) for every file
    /// when given, else each file's time clamped to `SOURCE_DATE_EPOCH` when set, else the file's.
    ///
    /// - Throws: what ``read()`` throws.
    static func lastModified(mtime: Int64?) throws -> SitePacker.LastModified {
        if let mtime { return .fixed(mtime) }
        return try read().map { .clamped($0) } ?? .fileTime
    }

    /// Decimal digits only (no sign, no spaces), 0 to ``latest``.
    static func seconds(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let seconds = Int64(text), seconds <= latest
        else { return nil }
        return seconds
    }
}
