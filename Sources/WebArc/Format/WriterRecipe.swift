/// How a writer made an archive: the choices spec Appendix C leaves open, so that a tool can write
/// the same bytes again from the same records (an applied update, spec §13.1).
///
/// Spec: §7.3 `Writer`, §13.2.
public struct WriterRecipe: Equatable, Sendable {
    /// The compression level: 1, or 3 to 12.
    public var level: Int
    /// Appendix C step 13's dictionary interval; 0: no dictionaries.
    public var dictionaryInterval: Int
    /// Appendix C step 15's Zstandard level (1 to 22); nil: step 15 off.
    public var zstdLevel: Int?
    /// The record-tree positions of the records in the order they were given to the writer, as
    /// runs; empty when that order is the tree's own.
    public var order: InsertionOrder
    /// Appendix C step 13's anchor rule (`Writer.anchors`).
    public var anchors: AnchorRule
    /// Where a codec-2 chunk's dictionary lies when LZ4 compresses it (`Writer.dictionaryPlacement`).
    public var placement: DictionaryPlacement
    /// The rules version of the archive's full-text index (`Writer.search`, spec §17), or nil: none.
    public var search: UInt64?
    /// Appendix C step 16's group limit in bytes (`Writer.groups`, since 2.4), or nil: no groups.
    public var groups: Int?

    /// Appendix C step 13's rules for which bodies are anchors.
    public enum AnchorRule: Equatable, Sendable {
        /// Every *n*-th position (`anchors` absent or 0).
        case everyNth
        /// Keyed by the records' keys (`anchors` 1, since 2.1.5).
        case keyed
        /// Local minima of the records' key hashes (`anchors` 2, since 2.1.7).
        case localMinimum
        /// A rule this version does not know: the archive reads, but cannot be written again.
        case unknown(UInt64)

        /// The rule `Writer.anchors` names.
        init(code: UInt64) {
            switch code {
            case 0: self = .everyNth
            case 1: self = .keyed
            case 2: self = .localMinimum
            default: self = .unknown(code)
            }
        }

        /// The value of `Writer.anchors`; nil: omitted (every *n*-th).
        var code: UInt64? {
            switch self {
            case .everyNth: nil
            case .keyed: 1
            case .localMinimum: 2
            case .unknown(let code): code
            }
        }
    }

    /// Makes a recipe. Without dictionaries (`dictionaryInterval` 0) the placement is `.apart`,
    /// as `Writer` records it (the field is written only where it matters).
    public init(
        level: Int, dictionaryInterval: Int, zstdLevel: Int? = nil, order: InsertionOrder = InsertionOrder(),
        anchors: AnchorRule = .everyNth,
        placement: DictionaryPlacement = .apart, search: UInt64? = nil, groups: Int? = nil
    ) {
        self.search = search
        self.groups = groups
        self.level = level
        self.dictionaryInterval = dictionaryInterval
        self.zstdLevel = zstdLevel
        self.order = order
        self.anchors = anchors
        self.placement = dictionaryInterval == 0 ? .apart : placement
    }

    /// Checks that this version can write an archive again by this recipe (an applied update, a
    /// refresh), before anything is written.
    ///
    /// - Throws: `badTarget` for an anchor rule or a dictionary placement a later version defines.
    package func requireWritable() throws {
        if let search, SearchIndexRegistry.contributor(version: search) == nil {
            throw WebArcError.badTarget(
                reason:
                    "the result has a search index of rules version \(search) (Writer.search), which this tool cannot write: use a newer webarc"
            )
        }
        if case .unknown(let code) = anchors {
            throw WebArcError.badTarget(
                reason:
                    "the result's writer uses anchor rule \(code) (Writer.anchors), which this version cannot write: use a newer webarc"
            )
        }
        if case .unknown(let code) = placement {
            throw WebArcError.badTarget(
                reason:
                    "the result's writer uses dictionary placement \(code) (Writer.dictionaryPlacement), which this version cannot write: use a newer webarc"
            )
        }
    }
}

/// Where the dictionary of a codec-2 chunk lies in memory when LZ4 compresses the chunk (spec
/// Appendix C step 13, `Writer.dictionaryPlacement`): the two give the same block for most chunks,
/// not all, so a tool that writes an archive again must place it as the archive's writer did.
public enum DictionaryPlacement: Equatable, Sendable {
    /// Apart from the chunk (liblz4's external-dictionary mode): `dictionaryPlacement` absent or
    /// 0, as every archive before 2.1.8.
    case apart
    /// Right before the chunk, the two one stream (liblz4's prefix mode, faster to compress):
    /// `dictionaryPlacement` 1, since 2.1.8; what this version writes.
    case prefix
    /// A placement this version does not know: the archive reads, but cannot be written again.
    case unknown(UInt64)

    /// The placement `Writer.dictionaryPlacement` names (absent: 0).
    init(code: UInt64) {
        switch code {
        case 0: self = .apart
        case 1: self = .prefix
        default: self = .unknown(code)
        }
    }

    /// The value of `Writer.dictionaryPlacement`; nil: omitted (apart).
    var code: UInt64? {
        switch self {
        case .apart: nil
        case .prefix: 1
        case .unknown(let code): code
        }
    }
}

/// What applying an update gives: the archive the update was made from (spec §13.1).
///
/// Spec: §7.3 `Target`.
public struct UpdateTarget: Equatable, Sendable {
    /// The result's archive digest (32 bytes).
    public var digest: [UInt8]
    /// The result's `archiveLength`.
    public var archiveLength: UInt64
    /// The result's metadata, with its writer recipe.
    public var archive: ArchiveMetadata {
        get { archiveStorage[0] }
        set { archiveStorage = [newValue] }
    }
    /// Holds ``archive`` (an array, since `ArchiveMetadata` holds a target in turn).
    private var archiveStorage: [ArchiveMetadata]
    /// The result's appendix, byte for byte (its signatures); empty when it has none.
    public var appendix: [UInt8]
    /// SHA-256 of the result's body data, bytes 16 to `bodyDataEnd` (since 2.1.4): what lets an
    /// apply copy stored chunks without decoding them; nil in older updates.
    public var bodyData: SHA256Hash?

    /// Makes a target.
    public init(
        digest: [UInt8], archiveLength: UInt64, archive: ArchiveMetadata, appendix: [UInt8] = [],
        bodyData: SHA256Hash? = nil
    ) {
        self.digest = digest
        self.archiveLength = archiveLength
        archiveStorage = [archive]
        self.appendix = appendix
        self.bodyData = bodyData
    }
}
