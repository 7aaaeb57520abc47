import Synchronization

/// Settings kept per URL protocol class, so that each subclass is an independent handler.
///
/// URL loading instantiates protocol classes itself and passes them nothing but the request, so
/// whatever a handler serves has to live in shared state; keying it by class lets an app (or a
/// test) run several handlers side by side by declaring `final class Help: ArchiveURLProtocol {}`.
final class ProtocolRegistry<Settings: Sendable>: Sendable {
    private let settings = Mutex<[ObjectIdentifier: Settings]>([:])

    /// The settings of `type`, or nil when none are set.
    func settings(for type: AnyClass) -> Settings? {
        settings.withLock { $0[ObjectIdentifier(type)] }
    }

    /// Sets (or, with nil, clears) the settings of `type`.
    func set(_ value: Settings?, for type: AnyClass) {
        settings.withLock { $0[ObjectIdentifier(type)] = value }
    }
}
