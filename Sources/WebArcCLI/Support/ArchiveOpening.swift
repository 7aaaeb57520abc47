import Foundation
import WebArc
import WebArcCLISupport
import WebArcRemote

/// Opens an archive for a command, turning failures into one-line errors with exit codes.
///
/// Every command that reads an archive takes an `http://` or `https://` URL where it takes a path:
/// the file is read in place with range requests (``WebArcRemote/HTTPByteSource``).
enum ArchiveOpening {
    /// Opens `location` (see ``reader(_:mapped:cacheMiB:readingAll:)``), its errors as one-line
    /// failures; a compact update given here is named as such.
    static func open(
        _ location: String, mapped: Bool = false, cacheMiB: Int? = nil, readingAll: Bool = false
    ) throws -> ArchiveReader {
        do {
            return try withFile(location) {
                try reader(location, mapped: mapped, cacheMiB: cacheMiB, readingAll: readingAll)
            }
        } catch let failure as CommandFailure
            where failure.code == ExitCodes.dataError && compactUpdate(location) != nil
        {
            // Only what opened and is not an archive is looked at again: a transport failure is not retried.
            throw compactUpdateGiven(location, code: failure.code)
        }
    }

    /// The compact update at `location` as the source to read it from (a file, or for an
    /// `http(s)://` URL an ``WebArcRemote/HTTPByteSource``: one request for a small one), or nil
    /// when `location` is not one or cannot be read.
    static func compactUpdate(_ location: String) -> (any ByteSource)? {
        let source: (any ByteSource)? =
            HTTPByteSource.isRemote(location)
            ? try? HTTPByteSource(url: location, configuration: remoteConfiguration)
            : try? FileByteSource(path: location)
        guard let source, CompactUpdate.isCompact(source: source) else { return nil }
        return source
    }

    /// What `location` holds: an archive, or a compact update (found by its magic) to read from
    /// its source. A URL is opened once for either: read in place by ranges, or with `readingAll`
    /// (a command that reads every body) downloaded once (``WebArcRemote/DownloadedByteSource``).
    static func archiveOrCompactUpdate(_ location: String, readingAll: Bool = false) throws -> Opened {
        guard HTTPByteSource.isRemote(location) else {
            if let source = compactUpdate(location) { return .compactUpdate(source) }
            return .archive(try open(location))
        }
        return try withFile(location) {
            if readingAll {
                let source = try DownloadedByteSource(url: location, configuration: remoteConfiguration)
                if CompactUpdate.isCompact(source: source) { return .compactUpdate(source) }
                return .archive(try ArchiveReader(download: source, path: location))
            }
            let source = try HTTPByteSource(url: location, configuration: remoteConfiguration)
            if CompactUpdate.isCompact(source: source) { return .compactUpdate(source) }
            return .archive(try ArchiveReader(source: source, path: location))
        }
    }

    /// An archive opened, or a compact update found instead (``archiveOrCompactUpdate(_:)``).
    enum Opened {
        case archive(ArchiveReader)
        case compactUpdate(any ByteSource)
    }

    /// The error for a compact update given where an archive is wanted: how to get one from it.
    static func compactUpdateGiven(_ location: String, code: Int32) -> CommandFailure {
        CommandFailure(
            "\(location) is a compact update, not an archive: apply it to its base first "
                + "(webarc apply BASE \(location) -o NEW.webarc, which checks it whole, or --layer for an update archive to serve over BASE)",
            code: code)
    }

    /// The reader of `location` (a path or an `http(s)://` URL), its errors as thrown. A URL is
    /// read in place by ranges or, with `readingAll` (a command that reads every body: `unpack`,
    /// `export`, `apply`), downloaded once, front to back, instead of a request per body, each a
    /// round trip.
    static func reader(
        _ location: String, mapped: Bool = false, cacheMiB: Int? = nil, readingAll: Bool = false
    ) throws -> ArchiveReader {
        if HTTPByteSource.isRemote(location) && readingAll {
            return try ArchiveReader(
                download: try DownloadedByteSource(url: location, configuration: remoteConfiguration), path: location)
        }
        if HTTPByteSource.isRemote(location) {
            var configuration = remoteConfiguration
            if let cacheMiB { configuration.cacheBytes = cacheMiB << 20 }
            return try ArchiveReader(url: location, configuration: configuration)
        }
        return try ArchiveReader(path: location, mapped: mapped)
    }

    /// How the CLI reads over HTTP: the library's defaults; `SSL_CERT_FILE` names the CA
    /// certificates to trust instead of the system's; `WEBARC_TRACE_HTTP=1` logs each request on
    /// stderr (the remote bench counts requests, bytes and round trips with it).
    static var remoteConfiguration: RemoteConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration = RemoteConfiguration()
        if environment["WEBARC_TRACE_HTTP"].map({ !$0.isEmpty && $0 != "0" }) == true {
            configuration.trace = { Output.error($0) }
        }
        return configuration
    }
}

/// Runs a library call, naming `file` in any error it throws.
func withFile<T>(_ file: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as WebArcError {
        throw CommandFailure(error, file: file)
    } catch let error as RemoteError {
        throw CommandFailure(error)
    }
}

extension CommandFailure {
    /// A transport failure: 66 when the archive cannot be reached at all, 74 when reading it failed.
    init(_ error: RemoteError) {
        self.init(error.description, code: error.isMissingInput ? ExitCodes.noInput : ExitCodes.ioError)
    }
}

extension ArchiveOpening {
    /// Opens `locations` (top first) as a layer stack: each update over the archives right below it.
    /// With `readingAll`, URLs are downloaded once (see ``reader(_:mapped:cacheMiB:readingAll:)``).
    /// With `commandLine` (the command reading the archives in the order given), an update listed
    /// after its base is refused with that command in the right order (``LayerOrder``).
    static func stack(
        _ locations: [String], mapped: Bool = false, cacheMiB: Int? = nil, readingAll: Bool = false,
        commandLine: (([String]) -> String)? = nil
    ) throws -> LayerStack {
        let readers = try locations.map { try open($0, mapped: mapped, cacheMiB: cacheMiB, readingAll: readingAll) }
        if let commandLine { try LayerOrder.check(readers, locations: locations, commandLine: commandLine) }
        return try withFile(locations[0]) { try LayerStack(readers) }
    }
}
