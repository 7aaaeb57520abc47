import WebArc

extension ArchiveReader {
    /// Opens the archive at an `http://` or `https://` URL, read in place with range requests.
    ///
    /// ```swift
    /// let reader = try ArchiveReader(url: "https://cdn.example.com/site.webarc")
    /// let page = try reader.lookup(url: "https://example.com/")   // one more request: the leaf
    /// ```
    ///
    /// Opening is one round trip (``HTTPByteSource``); a cold lookup adds the leaf page, and the
    /// body's chunks come in one more. Everything is verified as from a file (spec §11.2).
    ///
    /// - Throws: ``RemoteError`` when the file cannot be fetched, `WebArcError` when it is
    ///   not an archive this reader can open (spec §4.3).
    public convenience init(url: String, configuration: RemoteConfiguration = .init()) throws {
        let source = try HTTPByteSource(url: url, configuration: configuration)
        try self.init(source: source, path: url)
    }

    /// Opens the archive being downloaded by `source`, for a reader that reads all of it (`unpack`,
    /// `export`, `apply`): once it opened from the first round trip, the rest of the file is
    /// fetched at once (the pages first), so every byte crosses the network once, in long
    /// transfers, instead of a request per body.
    ///
    /// ```swift
    /// let reader = try ArchiveReader(download: try DownloadedByteSource(url: url), path: url)
    /// ```
    ///
    /// - Throws: as `ArchiveReader.init(source:path:bases:)`; the download is stopped then.
    public convenience init(download source: DownloadedByteSource, path: String) throws {
        do {
            try self.init(source: source, path: path)
        } catch {
            // Not an archive (or not one this reader opens): the stream need not go on.
            source.cancel()
            throw error
        }
        source.fetchRest(first: trailer.bodyDataEnd..<source.size)
    }

    /// Opens `location`: an `http(s)://` URL over the network, anything else as a local path.
    ///
    /// - Parameters:
    ///   - location: an `http(s)://` URL or a local path.
    ///   - mapped: for a local file, map it (see `ArchiveReader.init(path:mapped:bases:)`).
    ///   - configuration: for a URL, how it is fetched.
    public convenience init(location: String, mapped: Bool = false, configuration: RemoteConfiguration = .init()) throws
    {
        if HTTPByteSource.isRemote(location) {
            try self.init(url: location, configuration: configuration)
        } else {
            try self.init(path: location, mapped: mapped)
        }
    }
}

/// Verification of a remote archive: each byte downloaded once, checked as it arrives.
public enum RemoteVerifier {
    /// Downloads the archive at `url` once (``DownloadedByteSource``: from the first round trip, one
    /// stream from its start and, beside it, its tail with the pages; pages the tail lacks in one
    /// more request) and runs every check of `ArchiveVerifier` while it arrives (the pages
    /// first, then the bodies in file order as the stream brings them); with a trust policy, also
    /// decides whether the policy trusts it (the `appendix` check, spec §12.4).
    ///
    /// - Returns: the report, and the trust decision when a policy was given and accepts the archive.
    /// - Throws: ``RemoteError`` when the transfer fails (before or during the checks: a report on
    ///   an incomplete download would blame the archive for the network); the open error
    ///   (`WebArcError`, spec §4.3) when it is not an archive that opens.
    public static func verify(
        url: String, configuration: RemoteConfiguration = .init(), trusting policy: TrustPolicy? = nil,
        progress: ArchiveVerifier.Progress? = nil
    ) throws -> (report: VerificationReport, trust: TrustDecision?) {
        let source = try DownloadedByteSource(url: url, configuration: configuration)
        // A transfer that fails under the open throws its own error from the read.
        let reader = try ArchiveReader(download: source, path: url)
        let result =
            policy.map { ArchiveVerifier.verify(reader, trusting: $0, progress: progress) }
            ?? (ArchiveVerifier.verify(reader, progress: progress), nil)
        try source.finish()
        return result
    }
}
