import NIOCore
import Synchronization
import WebArc

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
///
/// NIO lets one `NIOFileHandle` be used by one thread at a time (a second concurrent `sendfile`
/// fails with `EBUSY` and NIO closes that connection), so a memory file holds one descriptor per
/// event loop (`dup`) and each connection sends from its own loop's.
package enum CachedBody: Sendable {
    /// Bytes in memory.
    case memory(ByteBuffer)
    /// Bytes in a shared-memory file; the ``MemoryFile`` must stay alive until the write completes.
    case file(MemoryFile)

    /// Bodies at least this long go into a memory file when one can be made. Smaller ones are
    /// written from memory: `sendfile` from many small memory files served fewer requests than
    /// `writev`, while large pages went faster by `sendfile` (measurements: Tools/bench/NOTES.md,
    /// 'CachedBody').
    static let fileThreshold = 256 << 10
    /// The most descriptors memory files hold at once (one per event loop each); beyond it bodies
    /// stay in `ByteBuffer`s.
    static let maxDescriptors = 2048
    private static let openDescriptors = Atomic<Int>(0)
    private static let fileNumber = Atomic<Int>(0)

    /// Caches `bytes`: in a memory file after `head` with one descriptor for each of `loops` event
    /// loops, when they are long enough and one can be made; otherwise as they are.
    static func make(_ bytes: ByteBuffer, head: ByteBuffer, loops: Int) -> CachedBody {
        guard bytes.readableBytes >= fileThreshold, let file = MemoryFile(head: head, body: bytes, loops: loops) else {
            return .memory(bytes)
        }
        return .file(file)
    }

    /// A shared-memory file (`shm_open`, unlinked at once, so nothing else can open it) holding a
    /// response head and one decoded body; closed on deinit, which frees its memory.
    package final class MemoryFile: Sendable {
        /// The open file, one descriptor per event loop, for `FileRegion`s.
        private let handles: [NIOFileHandle]
        /// The response head the file starts with (possibly empty).
        package let head: ByteBuffer
        /// The body's length in bytes; it starts at ``bodyOffset``.
        package let length: Int
        /// Where the body starts: the length of ``head``.
        package var bodyOffset: Int { head.readableBytes }

        /// The file's handle for the event loop numbered `loop`: a connection sends only through its
        /// own loop's, so no handle is ever used by two threads at once.
        package func handle(loop: Int) -> NIOFileHandle { handles[loop % handles.count] }

        /// Nil when no file can be made: the descriptor budget is spent, `shm_open` fails, the
        /// system is not Linux, or the process is portable (`Platform.portable`).
        fileprivate init?(head: ByteBuffer, body: ByteBuffer, loops: Int) {
            #if os(Linux)
            guard !Platform.portable else { return nil }
            let loops = max(1, loops)
            guard
                CachedBody.openDescriptors.wrappingAdd(loops, ordering: .relaxed).newValue <= CachedBody.maxDescriptors
            else {
                CachedBody.openDescriptors.wrappingSubtract(loops, ordering: .relaxed)
                return nil
            }
            let name = "/webarc-\(getpid())-\(CachedBody.fileNumber.wrappingAdd(1, ordering: .relaxed).newValue)"
            let descriptor = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 { shm_unlink(name) }
            guard descriptor >= 0, Self.write(head, to: descriptor), Self.write(body, to: descriptor) else {
                if descriptor >= 0 { close(descriptor) }
                CachedBody.openDescriptors.wrappingSubtract(loops, ordering: .relaxed)
                return nil
            }
            var descriptors = [descriptor]
            while descriptors.count < loops {
                let copy = dup(descriptor)
                guard copy >= 0 else {
                    descriptors.forEach { close($0) }
                    CachedBody.openDescriptors.wrappingSubtract(loops, ordering: .relaxed)
                    return nil
                }
                descriptors.append(copy)
            }
            handles = descriptors.map { NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: $0) }
            self.head = head
            length = body.readableBytes
            #else
            return nil
            #endif
        }

        deinit {
            for handle in handles { try? handle.close() }
            CachedBody.openDescriptors.wrappingSubtract(handles.count, ordering: .relaxed)
        }

        #if os(Linux)
        private static func write(_ bytes: ByteBuffer, to descriptor: Int32) -> Bool {
            bytes.withUnsafeReadableBytes { FileWriting.writeAll($0, to: descriptor) } == nil
        }
        #endif
    }
}
