import WebArc
import WebArcReplay

/// The archives a server answers from, searched in order, with the origins they hold.
///
/// ```swift
/// let archives = try ArchiveSet(readers: [try ArchiveReader(path: "update.webarc"),
///                                         try ArchiveReader(path: "base.webarc")])
/// print(archives.originMap.primary, archives.startURL)
/// ```
///
/// The first archive holding a URL answers it, so list an update before the base it updates.
/// Making a set reads every record once to learn the origins (a linear pass over the lookup table).
public struct ArchiveSet: Sendable {
    /// The archives in search order.
    public var readers: [ArchiveReader] { replay.readers }
    /// The replay engine's view of the archives: layered lookup and fuzzy rules (Spec/replay.md).
    public let replay: ReplayArchives
    /// Where each origin is served.
    public let originMap: OriginMap
    /// The page `/` leads to: the first start URL of an archived origin among the archives'
    /// metadata, else the primary origin's root.
    public let startURL: String?

    /// Reads the archives' origins and start pages.
    ///
    /// - Throws: `WebArcError` when an archive's index cannot be read.
    public init(readers: [ArchiveReader]) throws {
        replay = ReplayArchives(readers: readers)
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

    /// The path of the first archive read from a file that its path no longer names as it was
    /// opened: replaced by a rename (as `webarc apply -o` does) or rewritten in place; nil when
    /// every file is still the one opened (or is being replaced and cannot be looked up).
    public var replacedFile: String? {
        readers.first(where: \.isReplacedAtPath)?.path
    }

    /// The record a GET of `url` finds (the canonical key, then the fuzzy rules of
    /// `Spec/replay.md`), or nil when no archive holds it, an update deleted it, or the URL has
    /// no canonical form.
    ///
    /// - Throws: `WebArcError` when an archive's index is damaged.
    public func lookup(url: String) throws -> ReplayMatch? {
        do {
            return try replay.find(method: "GET", url: url)
        } catch WebArcError.badURL {
            return nil
        }
    }
}
