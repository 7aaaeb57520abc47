import Foundation
import WebArcHTML
import WebArcReplay

/// `<meta http-equiv="refresh">` elements that lead where a replay never goes.
extension LinkRewriter {
    /// Whether `tag` is a `<meta http-equiv="refresh" content="…; url=…">` whose target is not an
    /// http(s) or webarc URL (`javascript:`, `data:`, `file:`, …): the element is removed, as the
    /// server drops such a `Refresh` header (``ReplaySafety``).
    static func isUnsafeRefreshMeta(_ tag: HTMLTag) -> Bool {
        guard tag.name == "meta", httpEquiv(of: tag) == "refresh", let content = tag.attribute("content")?.decodedValue,
            let target = ReplaySafety.refreshTarget(content)
        else { return false }
        return !ReplaySafety.isReplayable(target)
    }

    /// The `http-equiv` value of a `<meta>` tag, lower case, without surrounding spaces.
    static func httpEquiv(of tag: HTMLTag) -> String? {
        tag.attribute("http-equiv").map { $0.decodedValue.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
    }
}
