import Foundation

/// The last chunks of anchor bodies, handed from the worker that reads an anchor to the workers
/// that code the bodies after it: the anchor's last chunk is their Zstandard history, and its last
/// 64 KiB their LZ4 dictionary (spec Appendix C steps 13 and 15). Pack's and apply's pipelines
/// share it; each names anchors by its own index (a file, a body position).
///
/// An anchor's tail is published once, as soon as it is read; one that fails publishes none, so
/// that its dependants do not wait for it. After ``cancel()`` no one waits any more.
final class AnchorTails: @unchecked Sendable {
    private let condition = NSCondition()
    /// Anchor → its last chunk (nil: an empty or failed anchor, which gives no dictionary).
    private var tails: [Int: [UInt8]?] = [:]
    private var cancelled = false

    /// Publishes anchor `index`'s last chunk (empty for an empty body) and wakes its dependants.
    func publish(_ index: Int, lastChunk: [UInt8]) {
        condition.broadcast { tails[index] = .some(lastChunk.isEmpty ? nil : lastChunk) }
    }

    /// Publishes that `index` gives no tail, unless it has published one: for a body that failed.
    func publishNoneIfMissing(_ index: Int) {
        condition.broadcast {
            if tails.index(forKey: index) == nil { tails[index] = .some(nil) }
        }
    }

    /// Waits until `anchor` has published; its last chunk, or nil for an empty or failed anchor,
    /// or when the run was cancelled first.
    func wait(for anchor: Int) -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while tails.index(forKey: anchor) == nil && !cancelled { condition.wait() }
        return tails[anchor] ?? nil
    }

    /// Removes `anchor`'s tail once its last dependant is coded, and returns it, so that the caller
    /// frees it outside any lock (free takes malloc's lock, which a worker may hold).
    func remove(_ anchor: Int) -> [UInt8]?? {
        condition.lock()
        defer { condition.unlock() }
        return tails.removeValue(forKey: anchor)
    }

    /// Stops every wait, now and later: the run is over.
    func cancel() {
        condition.broadcast { cancelled = true }
    }
}
