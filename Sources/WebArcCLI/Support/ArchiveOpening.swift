import Foundation
import WebArc
import WebArcCLISupport
import WebArcRemote

/// Opens an archive for a command, turning failures into one-line errors with exit codes.
///
/// Every command that reads an archive takes an `http://` or `https://` URL where it takes a path:
/// the file is read in place with range requests (``WebArcRemote/HTTPByteSource``).
enum ArchiveOpening {
    static func open(_ location: String, mapped: Bool = false, cacheMiB: Int? = nil) throws -> ArchiveReader {
        do {
            return try withFile(location) { try reader(location, mapped: mapped, cacheMiB: cacheMiB) }
        } catch let failure as CommandFailure where !HTTPByteSource.isRemote(location) && CompactUpdate.isCompact(path: location) {
            throw compactUpdateGiven(location, code: failure.code)
        }
    }

    /// The error for a compact update given where an archive is wanted: how to get one from it.
    static func compactUpdateGiven(_ location: String, code: Int32) -> CommandFailure {
        CommandFailure(
            "\(location) is a compact update, not an archive: apply it to its base first "
                + "(webarc apply BASE \(location) -o NEW.webarc, which checks it whole, or --layer for an update archive to serve over BASE)",
            code: code)
    }

    /// The reader of `location` (a path or an `http(s)://` URL), its errors as thrown.
    static func reader(_ location: String, mapped: Bool = false, cacheMiB: Int? = nil) throws -> ArchiveReader {
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
    static func stack(_ locations: [String], mapped: Bool = false, cacheMiB: Int? = nil) throws -> LayerStack {
        let readers = try locations.map { try open($0, mapped: mapped, cacheMiB: cacheMiB) }
        return try withFile(locations[0]) { try LayerStack(readers) }
    }
}
