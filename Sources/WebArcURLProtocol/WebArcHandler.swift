import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A webarc URL protocol class (``ArchiveURLProtocol``, ``RecordingURLProtocol`` or a subclass):
/// how it is put in front of a session.
public protocol WebArcHandler: URLProtocol {}

extension WebArcHandler {
    /// Puts this class first in `configuration.protocolClasses`, so sessions made from it use it.
    public static func install(in configuration: URLSessionConfiguration) {
        let others = (configuration.protocolClasses ?? []).filter { $0 != Self.self }
        configuration.protocolClasses = [Self.self] + others
    }

    /// Registers this class for `URLSession.shared`.
    ///
    /// On Linux a registered class reaches `URLSession.shared` only: a session made from a
    /// configuration uses the configuration's protocol classes, so it needs ``install(in:)``.
    @discardableResult
    public static func registerForSharedSession() -> Bool {
        URLProtocol.registerClass(Self.self)
    }

    /// Undoes ``registerForSharedSession()``.
    public static func unregisterFromSharedSession() {
        URLProtocol.unregisterClass(Self.self)
    }
}

extension ArchiveURLProtocol: WebArcHandler {}
extension RecordingURLProtocol: WebArcHandler {}
