import Crypto
import Dispatch

/// An MD5 that one thread at a time updates, handed between threads by a dispatch group, so that
/// a long body's MD5 (one stream, about 0.6 GB/s) runs on another core beside its SHA-256 and LZ4.
final class MD5Stream: @unchecked Sendable {
    private var hasher = Insecure.MD5()

    /// Hashes `piece` on this thread.
    func update(_ piece: ArraySlice<UInt8>) {
        piece.withUnsafeBytes { hasher.update(bufferPointer: $0) }
    }

    /// Hashes `piece` on a global queue, in `group`; the caller waits on the group before the next
    /// update or ``finalize()``, on a thread that is not one of Swift concurrency's pool (whose
    /// threads the global queues are on Linux: a pool blocked in such waits could not run the
    /// hashing it waits for).
    func update(_ piece: ArraySlice<UInt8>, in group: DispatchGroup) {
        DispatchQueue.global().async(group: group) { [self] in update(piece) }
    }

    /// The MD5 of every piece given.
    func finalize() -> BodyDigest {
        BodyDigest(hasher.finalize())
    }
}
