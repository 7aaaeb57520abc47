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
/// Making a set reads a few pages per archived origin (never every record), unless no archive
/// names a start page and there are several origins to choose the one served at / from.
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
        var known: Set<Origin> = []
        for reader in readers {
            for origin in try Self.origins(of: reader) where known.insert(origin).inserted { origins.append(origin) }
        }
        var start: (url: String, origin: Origin)?
        for reader in readers {
            if let url = try reader.metadata.startURL, let origin = Origin(url: url), known.contains(origin) {
                start = (url, origin)
                break
            }
        }
        // Without a start page the origin with the most records is served at /: only then are
        // records counted, and only when there is a choice.
        let primary =
            try start?.origin
            ?? (origins.count > 1 ? try Self.busiest(of: origins, in: readers) : origins.first)
        originMap = OriginMap(origins: origins, primary: primary)
        startURL = start?.url ?? primary.map { $0.url + "/" }
    }

    /// The http(s) origins of `reader`'s records in key order (one may repeat under another method), found by skipping from each origin
    /// to the first key past it: a few page reads per origin, however many records each holds.
    static func origins(of reader: ArchiveReader) throws -> [Origin] {
        var origins: [Origin] = []
        var bound: [UInt8] = []
        while let key = try reader.firstRecordKey(notBelow: bound) {
            let url = key.drop { $0 != UInt8(ascii: " ") }.dropFirst()
            guard let text = String(validating: url, as: UTF8.self), let origin = Origin(url: text) else {
                bound = key + [0]
                continue
            }
            origins.append(origin)
            bound = skipBound(after: key, url: url)
        }
        return origins
    }

    /// The smallest key past every key that starts like `key` up to and including the `/` after
    /// its authority (`GET http://host/`), all of them of one origin; `key` plus a zero byte (the
    /// next key) when there is no such `/`.
    static func skipBound(after key: [UInt8], url: ArraySlice<UInt8>) -> [UInt8] {
        let separator = Array("://".utf8)
        guard let schemeEnd = url.firstRange(of: separator)?.upperBound,
            let slash = url[schemeEnd...].firstIndex(where: {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            }), url[slash] == UInt8(ascii: "/")
        else { return key + [0] }
        // Keys sort by bytes: the successor of the prefix `…/` is the prefix ending in `0`.
        return Array(key[..<slash]) + [UInt8(ascii: "/") + 1]
    }

    /// The origin with the most records among `readers` (the first met on a tie): one walk over
    /// every record.
    static func busiest(of origins: [Origin], in readers: [ArchiveReader]) throws -> Origin? {
        var counts: [Origin: Int] = [:]
        for reader in readers {
            try reader.forEachEntry { entry in
                if let origin = Origin(url: entry.key.drop { $0 != " " }.dropFirst()) {
                    counts[origin, default: 0] += 1
                }
            }
        }
        return origins.max { counts[$0, default: 0] < counts[$1, default: 0] }
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
