/// The duplicates rule: which captures of one method and canonical URL an import keeps.
///
/// With ``DuplicatePolicy/latest`` (the default) the newest capture wins; with
/// ``DuplicatePolicy/earliest`` the oldest. Either way a partial answer — a 206 (part of a
/// representation, answering a `Range` request) or a 304 (none, answering a conditional one) —
/// never replaces a full one: it is kept only when the key has no full capture, and a 206 is
/// preferred to a 304. A capture without a date counts as older than any dated one, and among
/// equal dates the one read later wins for `latest` and the one read first for `earliest`.
/// ``DuplicatePolicy/all`` keeps everything.
/// Spec: `Spec/interop.md` §4.
enum CaptureSelection {
    /// The positions in `captures` to keep, in ascending order.
    static func select(_ captures: [Capture], policy: DuplicatePolicy) -> [Int] {
        guard policy != .all else { return Array(captures.indices) }
        var best: [String: Int] = [:]
        for (index, capture) in captures.enumerated() {
            guard let current = best[capture.key] else {
                best[capture.key] = index
                continue
            }
            if prefers(capture, over: captures[current], policy: policy) { best[capture.key] = index }
        }
        return best.values.sorted()
    }

    /// Whether `candidate` (read after `current`) should replace it.
    static func prefers(_ candidate: Capture, over current: Capture, policy: DuplicatePolicy) -> Bool {
        if candidate.completeness != current.completeness { return candidate.completeness > current.completeness }
        let candidateTime = candidate.captureDate?.timeIntervalSince1970 ?? -Double.infinity
        let currentTime = current.captureDate?.timeIntervalSince1970 ?? -Double.infinity
        switch policy {
        case .latest: return candidateTime >= currentTime
        case .earliest: return candidateTime < currentTime
        case .all: return true
        }
    }
}
