import Foundation

/// Why a refresh that read the archive and asked the origin wrote nothing.
///
/// Each case carries the refresh's counts, so that a caller can still report what the origin said.
public enum RefreshError: Error, Equatable, CustomStringConvertible {
    /// The answers would change, redirect or delete a larger share of the archive's GET responses
    /// than ``RefreshOptions/maxChangeShare`` (`limit`): likely a misconfigured origin rather than
    /// a new release of the site.
    case massChange(limit: Double, summary: RefreshSummary)
    /// Every URL asked was kept after an error (``RefreshSummary/kept``): the origin is down or
    /// refuses, and the update would hold no change.
    case noAnswers(summary: RefreshSummary)

    /// The refresh's counts.
    public var summary: RefreshSummary {
        switch self {
        case .massChange(_, let summary), .noAnswers(let summary): summary
        }
    }

    /// One line, lower case: the counts, and that nothing was written.
    public var description: String {
        switch self {
        case .massChange(let limit, let summary):
            "the refresh would change \(summary.changed + summary.redirected) and delete \(summary.gone) of "
                + "\(summary.stored) stored responses (\(Self.percent(summary.changeShare))), more than the "
                + "\(Self.percent(limit)) allowed: nothing written"
        case .noAnswers(let summary):
            (summary.asked == 1 ? "the one URL asked was" : "every one of the \(summary.asked) URLs asked was")
                + " kept after an error (first: \(summary.kept.first?.description ?? "none")): the origin is down or refusing, nothing written"
        }
    }

    /// `30 %`, `12.5 %`.
    static func percent(_ share: Double) -> String {
        let value = (share * 1000).rounded() / 10
        return value == value.rounded() ? "\(Int(value)) %" : "\(value) %"
    }
}
