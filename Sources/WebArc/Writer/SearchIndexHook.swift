import Synchronization

/// A response the writer offers to a search index when it finishes: what the index needs to
/// decide whether to index it, and a way to read its body back.
public struct IndexableResponse: Sendable {
    /// The request URL as captured.
    public var url: String
    /// The HTTP status.
    public var status: Int
    /// The media type without parameters, lower case, when the response has one.
    public var mediaType: String?
    /// The charset the response names, when it names one.
    public var charset: String?
    /// The body's length in bytes.
    public var length: UInt64

    /// Makes a response offered to an index.
    public init(url: String, status: Int, mediaType: String?, charset: String?, length: UInt64) {
        self.url = url
        self.status = status
        self.mediaType = mediaType
        self.charset = charset
        self.length = length
    }
}

/// What the archive writer calls to add a full-text index (spec §17) to the archive it finishes.
///
/// The core knows the index only as pages of type 5; the search module implements this. The
/// writer calls ``wants(_:)``, then ``analyze(_:body:)`` (on several threads at once, while it
/// adds earlier analyses) for every response it wants, then ``add(_:)`` with each analysis in
/// insertion order, then ``writePages(_:)`` once.
public protocol SearchIndexContributor: AnyObject {
    /// The index rules version this contributor writes (`Writer.search`, spec §7.3).
    var version: UInt64 { get }
    /// Whether the index takes this response (a page of text).
    func wants(_ response: IndexableResponse) -> Bool
    /// The response's body analysed into what ``add(_:)`` takes; runs on any thread, at the same
    /// time as other calls of it and of ``add(_:)``.
    func analyze(_ response: IndexableResponse, body: [UInt8]) -> any Sendable
    /// Adds one analysed response, in insertion order.
    func add(_ analysis: any Sendable) throws
    /// Writes every page of the index but its root through `store` (children before parents) and
    /// returns the root page's decoded bytes, which the writer stores right before the metadata.
    func writePages(_ store: (_ raw: [UInt8]) throws -> SearchPageAddress) throws -> [UInt8]
    /// Offers `base`'s own index as a source of analyses for an archive written again (an applied
    /// update): returns whether the contributor reads it (an index of its rules version), and
    /// from then on answers ``analysis(reusing:key:body:)`` from it. The default takes none.
    func reuseIndex(of base: ArchiveReader) -> Bool
    /// The analysis of `response` (tree key `key`, body MD5 `body`) taken from the index
    /// ``reuseIndex(of:)`` took, when its archive holds the same body with the same media type and
    /// charset as a document at the same key; nil: the writer reads the body and analyses it.
    /// Called in tree order, for each response ``wants(_:)`` takes, before ``add(_:)`` gets it.
    func analysis(reusing response: IndexableResponse, key: [UInt8], body: BodyDigest) -> (any Sendable)?
    /// Documents taken from a base's index so far.
    var reusedDocuments: Int { get }
}

extension SearchIndexContributor {
    /// Takes no base index.
    public func reuseIndex(of base: ArchiveReader) -> Bool { false }
    /// None: every body is analysed.
    public func analysis(reusing response: IndexableResponse, key: [UInt8], body: BodyDigest) -> (any Sendable)? {
        nil
    }
    /// None.
    public var reusedDocuments: Int { 0 }
}

/// Where the writer stored a search page: an opaque page reference the contributor puts in the
/// page that names it.
public struct SearchPageAddress: Sendable {
    package let reference: PageReference

    package init(_ reference: PageReference) { self.reference = reference }
}

/// How a tool that writes an archive again (an applied update, a refresh) finds the search index
/// writer of a given rules version: the search module registers one.
public enum SearchIndexRegistry {
    private static let factories = Mutex<[UInt64: @Sendable () -> any SearchIndexContributor]>([:])

    /// Registers the writer of index rules `version`.
    public static func register(version: UInt64, _ make: @escaping @Sendable () -> any SearchIndexContributor) {
        factories.withLock { $0[version] = make }
    }

    /// A new writer of index rules `version`, or nil when none is registered.
    public static func contributor(version: UInt64) -> (any SearchIndexContributor)? {
        factories.withLock { $0[version] }?()
    }

    private static let byDefault = Mutex<(@Sendable () -> any SearchIndexContributor)?>(nil)

    /// What every ``ArchiveWriter/Options`` made from now on in this process gets as its
    /// `searchIndex` (a tool that indexes what it writes unless told not to sets it once at start);
    /// nil, the default: no index unless a writer's options ask for one.
    public static var writerDefault: (@Sendable () -> any SearchIndexContributor)? {
        get { byDefault.withLock { $0 } }
        set { byDefault.withLock { $0 = newValue } }
    }
}

extension ArchiveWriter.Options {
    /// Makes the search index now, when the options have one, taking the documents of the first
    /// of `bases` whose own index it can reuse (``SearchIndexContributor/reuseIndex(of:)``), and
    /// has the writer use that index: its ``SearchIndexContributor/reusedDocuments`` are then read
    /// after the writer finishes. Nil, with the options unchanged, when there is no index or no
    /// base.
    package mutating func searchIndex(reusing bases: [ArchiveReader]) -> (any SearchIndexContributor)? {
        guard !bases.isEmpty, let make = searchIndex else { return nil }
        let made = make()
        for base in bases where made.reuseIndex(of: base) { break }
        nonisolated(unsafe) let given = made
        searchIndex = { given }
        return made
    }
}
