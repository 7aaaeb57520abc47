/// Which captures of one URL an import keeps (spec `Spec/interop.md` §4).
public enum DuplicatePolicy: String, CaseIterable, Sendable {
    /// The newest capture of each method and canonical URL; a 304 only when there is nothing else.
    case latest
    /// The oldest capture of each method and canonical URL; a 304 only when there is nothing else.
    case earliest
    /// Every capture; lookups answer with the newest.
    case all
}

/// Choices for ``ArchiveImporter``.
public struct ImportOptions: Sendable {
    /// Which captures of one URL to keep.
    public var keep: DuplicatePolicy
    /// Skip bad records (and list them in the summary) instead of failing.
    public var skipBad: Bool
    /// Replace the output file if it exists.
    public var overwrite: Bool

    /// Makes options; by default the latest capture wins, bad records fail, nothing is replaced.
    public init(keep: DuplicatePolicy = .latest, skipBad: Bool = false, overwrite: Bool = false) {
        self.keep = keep
        self.skipBad = skipBad
        self.overwrite = overwrite
    }
}
