/// A ``ByteSource`` whose bytes live at an origin that a publisher can replace (a remote archive's
/// URL), and that can ask the origin whether they are still the version it read.
///
/// A front end that keeps archives open (the URL protocol, `webarc serve`) asks now and then, so
/// that a client whose pages are all cached still moves to a new release.
package protocol OriginChecking: ByteSource {
    /// Asks the origin whether it still holds the version this source read.
    ///
    /// - Returns: nil when it does; otherwise the error saying it changed (a ``SourceChanged``
    ///   error whose `sourceChanged` is true).
    /// - Throws: when the origin cannot say (network down, timeout).
    func originChange() throws -> (any Error)?
}

extension ArchiveReader {
    /// Asks the origin of each of `readers` read from an ``OriginChecking`` source, in order,
    /// whether it still holds the version read (one small request each), stopping at the first
    /// that does not.
    ///
    /// - Returns: that origin's change error; nil when every origin still holds its version, or
    ///   could not say (the network is down), or no reader is remote.
    package static func firstOriginChange(among readers: [ArchiveReader]) -> (any Error)? {
        for reader in readers {
            guard let source = reader.byteSource as? any OriginChecking,
                let change = (try? source.originChange()) ?? nil
            else { continue }
            return change
        }
        return nil
    }
}
