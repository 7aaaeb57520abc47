import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Independent reads a search makes (its hits' snippets and phrase checks), run at once as wide
/// as the archive's source is worth (`ByteSource.concurrentReads`).
enum ConcurrentReads {
    /// Runs `work` for `0..<count`, at most `width` at a time, and returns when all have.
    ///
    /// Up to one per core on Dispatch's pool (the reads cost CPU); wider on threads of their own,
    /// joined before it returns, since a remote read mostly waits and the pool would not start
    /// more threads than cores.
    static func forEach(_ count: Int, width: Int, _ work: @Sendable (Int) -> Void) {
        guard count > 1, width > ProcessInfo.processInfo.activeProcessorCount else {
            DispatchQueue.concurrentPerform(iterations: count, execute: work)
            return
        }
        withoutActuallyEscaping(work) { work in
            let job = Job(count: count, work: work)
            var threads: [pthread_t] = []
            for _ in 1..<min(count, width) {
                let context = Unmanaged.passRetained(job).toOpaque()
                #if canImport(Glibc)
                var thread = pthread_t()
                #else
                var thread: pthread_t?
                #endif
                let started = pthread_create(
                    &thread, nil,
                    { context in
                        Unmanaged<Job>.fromOpaque(context!).takeRetainedValue().run()
                        return nil
                    }, context)
                guard started == 0 else {
                    Unmanaged<Job>.fromOpaque(context).release()
                    break
                }
                #if canImport(Glibc)
                threads.append(thread)
                #else
                if let thread { threads.append(thread) }
                #endif
            }
            // The calling thread takes numbers too; when no thread could start, it takes them all.
            job.run()
            for thread in threads { pthread_join(thread, nil) }
        }
    }

    /// The numbers left to run, taken in turn by every thread.
    private final class Job: @unchecked Sendable {
        let count: Int
        let work: @Sendable (Int) -> Void
        let next = Atomic<Int>(0)

        init(count: Int, work: @escaping @Sendable (Int) -> Void) {
            self.count = count
            self.work = work
        }

        func run() {
            while true {
                let number = next.add(1, ordering: .relaxed).oldValue
                guard number < count else { return }
                work(number)
            }
        }
    }
}
