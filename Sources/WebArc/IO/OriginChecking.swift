/// A ``ByteSource`` whose bytes live at an origin that a publisher can replace (a remote archive's
/// URL), and that can ask the origin whether they are still the version it read.
///
/// A front end that keeps archives open (the URL protocol, `webarc serve`) asks now and then, so
/// that a client whose pages are all cached still moves to a new release.
public protocol OriginChecking: ByteSource {
    /// Asks the origin whether it still holds the version this source read.
    ///
    /// - Returns: nil when it does; otherwise the error saying it changed (a ``SourceChanged``
    ///   error whose `sourceChanged` is true).
    /// - Throws: when the origin cannot say (network down, timeout).
    func originChange() throws -> (any Error)?
}
