import CZstd
import Synchronization

/// Zstandard decoding contexts kept for reuse: making one allocates and clears about 100 KiB,
/// which cost more than decoding a small delta chunk (codec 3) against its reference.
///
/// A context is reset (session and parameters, so no prefix or limit carries over) before it goes
/// back; at most ``capacity`` are kept, the rest freed.
final class DecoderPool: Sendable {
    /// The pool every decoder of delta chunks shares.
    static let shared = DecoderPool()
    /// Contexts kept at most: one per thread that decodes at once is enough.
    let capacity = 8
    private let idle = Mutex<[Idle]>([])

    /// A context no thread uses: owned by the pool alone, so it may cross threads.
    private struct Idle: @unchecked Sendable {
        let context: OpaquePointer
    }

    /// A context ready for a frame, or nil when none can be made.
    func take() -> OpaquePointer? {
        idle.withLock { $0.popLast() }?.context ?? ZSTD_createDCtx()
    }

    /// Takes back a context from ``take()``.
    func give(_ context: OpaquePointer) {
        ZSTD_DCtx_reset(context, ZSTD_reset_session_and_parameters)
        let kept = idle.withLock { contexts -> Bool in
            guard contexts.count < capacity else { return false }
            contexts.append(Idle(context: context))
            return true
        }
        if !kept { ZSTD_freeDCtx(context) }
    }
}
