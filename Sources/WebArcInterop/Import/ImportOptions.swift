import WebArc

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
    /// Every how many responses a body is a dictionary for the next ones (spec Appendix C step
    /// 13, anchors every `dictionaryInterval`-th: the positions are known as bodies come, unlike
    /// `pack`'s local minima, which need every length first); 0: none.
    public var dictionaryInterval: Int
    /// Where a dictionary lies when a body is compressed against it (`Writer.dictionaryPlacement`):
    /// right before it by default; `.apart` writes as webarc 2.4 and earlier did.
    public var dictionaryPlacement: DictionaryPlacement = .prefix
    /// The most bytes a gzip HAR or `.webarchive` may decompress to: it is read whole into
    /// memory, and a small file can expand a thousandfold (1 GiB by default; a plain file has no
    /// such limit).
    public var maxDecompressedBytes = 1 << 30

    /// Makes options; by default the latest capture wins, bad records fail, nothing is replaced,
    /// and every 32nd body is a dictionary, as `pack`'s interval.
    public init(
        keep: DuplicatePolicy = .latest, skipBad: Bool = false, overwrite: Bool = false,
        dictionaryInterval: Int = SitePacker.defaultDictionaryInterval
    ) {
        self.keep = keep
        self.skipBad = skipBad
        self.overwrite = overwrite
        self.dictionaryInterval = dictionaryInterval
    }
}
