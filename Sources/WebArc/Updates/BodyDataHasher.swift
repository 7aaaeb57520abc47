import Crypto
import Dispatch

/// Hashes the body data an apply writes on a thread of its own, reading back what the writer has
/// written as it goes, so that checking `Target.bodyData` (spec §13.1) adds no serial pass at the
/// end.
///
/// The caller hands over the extent written so far after each body it adds (``advance(to:)``):
/// nothing below the output's length is rolled back once an add has returned.
final class BodyDataHasher: @unchecked Sendable {
    private let output: OutputFile
    private let queue = DispatchQueue(label: "webarc.body-data-hasher")
    /// Touched only on `queue`.
    private var hasher = SHA256()
    private var failure: (any Error)?
    /// The end of what was handed over; touched only by the caller.
    private var handedOver: UInt64 = 16
    /// Bytes handed over at once, at least.
    static let step: UInt64 = 2 << 20

    init(output: OutputFile) {
        self.output = output
    }

    /// Hands over the bytes from the last hand-over to `end` once they make a step and are in
    /// the file.
    func advance(to end: UInt64) {
        let end = min(end, output.flushed)
        guard end >= handedOver + Self.step else { return }
        hand(over: end)
    }

    /// The SHA-256 of the body data from 16 to `end`, once every byte is hashed.
    ///
    /// - Throws: `io` when reading back failed.
    func digest(end: UInt64) throws -> SHA256Hash {
        try output.flush()
        if end > handedOver { hand(over: end) }
        return try queue.sync {
            if let failure { throw failure }
            return SHA256Hash(hasher.finalize())
        }
    }

    private func hand(over end: UInt64) {
        let start = handedOver
        handedOver = end
        queue.async { [self] in
            guard failure == nil else { return }
            do {
                try BodyDataDigest.update(&hasher, from: start, to: end) { offset, count in
                    try output.readFlushed(at: offset, count: count)
                }
            } catch {
                failure = error
            }
        }
    }
}
