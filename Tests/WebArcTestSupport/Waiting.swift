import Foundation

/// Whether `condition` holds within `seconds`, asked again every few milliseconds.
///
/// For an event no callback announces (a file gets bytes, a server starts answering from a new
/// release): the condition decides, and the deadline only keeps a broken build from hanging the
/// suite, so it is generous. Callers `#expect` the result with a message naming the event.
public func waitUntil(upTo seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(5_000)
    }
}

/// As the blocking ``waitUntil(upTo:_:)``, for a condition that awaits (a request to a server).
public func waitUntil(upTo seconds: Double = 60, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while true {
        if try await condition() { return true }
        if Date() >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
}
