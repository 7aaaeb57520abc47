import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A decoded body held by the hot-body cache: in a `ByteBuffer`, or (on Linux, for bodies of
/// ``fileThreshold`` bytes or more) in an unlinked shared-memory file that the transport hands to
/// `sendfile`, so that the kernel sends it without copying it from user space, as nginx does
/// with files.
///
/// A memory file starts with the complete response head of the resource whose request decoded the
/// body (``MemoryFile/head``), then the body: a plain GET of that resource is then one `sendfile`
/// of the whole file — one system call per response, where head plus body take four (cork, write,
/// sendfile, uncork). Other answers (ranges, HEAD, another resource with the same body) send their
/// own head and the body's part of the file.
public enum CachedBody: Sendable {
    /// Bytes in memory.
    case memory(ByteBuffer)
    /// Bytes in a shared-memory file; the ``MemoryFile`` must stay alive until the write completes.
    case file(MemoryFile)

    /// Bodies at least this long go into a memory file when one can be made.
    static let fileThreshold = 16 << 10
    /// The most memory files open at once; beyond it bodies stay in `ByteBuffer`s.
    static let maxFiles = 1024
    private static let openFiles = Atomic<Int>(0)
    private static let fileNumber = Atomic<Int>(0)

    /// Caches `bytes`: in a memory file after `head` when they are long enough and one can be made,
    /// otherwise as they are.
    static func make(_ bytes: ByteBuffer, head: ByteBuffer) -> CachedBody {
        guard bytes.readableBytes >= fileThreshold, let file = MemoryFile(head: head, body: bytes) else { return .memory(bytes) }
        return .file(file)
    }

    /// A shared-memory file (`shm_open`, unlinked at once, so nothing else can open it) holding a
    /// response head and one decoded body; closed on deinit, which frees its memory.
    public final class MemoryFile: Sendable {
        /// The open file, for `FileRegion`s.
        public let handle: NIOFileHandle
        /// The response head the file starts with (possibly empty).
        public let head: ByteBuffer
        /// The body's length in bytes; it starts at ``bodyOffset``.
        public let length: Int
        /// Where the body starts: the length of ``head``.
        public var bodyOffset: Int { head.readableBytes }

        fileprivate init?(head: ByteBuffer, body: ByteBuffer) {
            #if os(Linux)
            guard CachedBody.openFiles.wrappingAdd(1, ordering: .relaxed).newValue <= CachedBody.maxFiles else {
                CachedBody.openFiles.wrappingSubtract(1, ordering: .relaxed)
                return nil
            }
            let name = "/webarc-\(getpid())-\(CachedBody.fileNumber.wrappingAdd(1, ordering: .relaxed).newValue)"
            let descriptor = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 { shm_unlink(name) }
            guard descriptor >= 0, Self.write(head, to: descriptor), Self.write(body, to: descriptor) else {
                if descriptor >= 0 { close(descriptor) }
                CachedBody.openFiles.wrappingSubtract(1, ordering: .relaxed)
                return nil
            }
            handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
            self.head = head
            length = body.readableBytes
            #else
            return nil
            #endif
        }

        deinit {
            try? handle.close()
            CachedBody.openFiles.wrappingSubtract(1, ordering: .relaxed)
        }

        private static func write(_ bytes: ByteBuffer, to descriptor: Int32) -> Bool {
            bytes.withUnsafeReadableBytes { raw in
                var done = 0
                while done < raw.count {
                    let wrote = Glibc.write(descriptor, raw.baseAddress! + done, raw.count - done)
                    if wrote < 0 && errno == EINTR { continue }
                    guard wrote > 0 else { return false }
                    done += wrote
                }
                return true
            }
        }
    }
}
