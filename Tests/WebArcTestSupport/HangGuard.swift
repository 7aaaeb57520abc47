/// The result of `operation`, or nil when it has not returned within `seconds`.
///
/// A hang guard for a test that waits on an event, not a timing claim: the event decides, the
/// deadline only keeps a broken build from hanging the suite. `operation` must end when its task
/// is cancelled.
public func withHangGuard<Value: Sendable>(
    seconds: Double = 60, _ operation: @escaping @Sendable () async -> Value?
) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}
