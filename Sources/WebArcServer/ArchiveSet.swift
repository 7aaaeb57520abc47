import WebArc

/// The archives a server answers from, searched in order, with the origins they hold.
///
/// ```swift
/// let archives = try ArchiveSet(readers: [try ArchiveReader(path: "update.webarc", mapped: true),
///                                         try ArchiveReader(path: "base.webarc", mapped: true)])
/// print(archives.originMap.primary, archives.startURL)
/// ```
///
/// The first archive holding a URL answers it, so list an update before the base it updates.
/// Making a set reads every record once to learn the origins (a linear pass over the lookup table).
public struct ArchiveSet: Sendable {
    /// The archives in search order.
    public let readers: [ArchiveReader]
    /// Where each origin is served.
    public let originMap: OriginMap
    /// The page `/` leads to: the first start URL of an archived origin among the archives'
    /// metadata, else the primary origin's root.
    public let startURL: String?

    /// Reads the archives' origins and start pages.
    ///
    /// - Throws: ``WebArcError`` when an archive's index cannot be read.
    public init(readers: [ArchiveReader]) throws {
        self.readers = readers
        var origins: [Origin] = []
        var counts: [Origin: Int] = [:]
        for reader in readers {
            try reader.forEachEntry { entry in
                let url = entry.key.drop { $0 != " " }.dropFirst()
                guard let origin = Origin(url: url) else { return }
                if counts[origin] == nil { origins.append(origin) }
                counts[origin, default: 0] += 1
            }
        }
        var start: (url: String, origin: Origin)?
        for reader in readers {
            if let url = try reader.metadata.startURL, let origin = Origin(url: url), counts[origin] != nil {
                start = (url, origin)
                break
            }
        }
        let busiest = origins.max { counts[$0, default: 0] < counts[$1, default: 0] }
        let primary = start?.origin ?? busiest
        originMap = OriginMap(origins: origins, primary: primary)
        startURL = start?.url ?? primary.map { $0.url + "/" }
    }

    /// The first record for a GET of `url` and the index of the archive holding it, or nil when
    /// no archive holds it, the first that has it holds a tombstone (an update deleted it), or the
    /// URL has no canonical form.
    ///
    /// - Throws: ``WebArcError`` when an archive's index is damaged.
    public func lookup(url: String) throws -> (archive: Int, record: ArchiveRecord)? {
        guard let key = try? URLKey.key(method: "GET", url: url) else { return nil }
        for (index, reader) in readers.enumerated() {
            if let entry = try reader.lookup(key: key) {
                if case .tombstone = entry.record { return nil }
                return (index, entry.record)
            }
        }
        return nil
    }
}
