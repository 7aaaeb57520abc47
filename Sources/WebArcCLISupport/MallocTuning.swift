import Foundation
import Synchronization
import WebArc

#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// glibc allocator settings for the one-shot commands that move a whole archive's bodies through
/// memory, whose peak memory must stay small and whose time counts. Long-running commands
/// (`serve` above all) keep glibc's defaults (measurements: Tools/bench/NOTES.md, 'MallocTuning').
/// Each call does nothing off glibc or when `Platform.portable`.
package enum MallocTuning {
    /// Makes every thread created from now on allocate from the main arena (`pack`, ZIM import).
    ///
    /// glibc gives each thread that allocates its own arena, and memory freed into an arena stays
    /// there for that arena's next allocations. Pack's workers read and compress files in one arena
    /// each while the writer frees their buffers, so every arena came to hold about a window's
    /// worth of free memory; one arena holds it once. Pack is not slower for it: a file costs a few
    /// large allocations, so the arena's lock is seldom contended. The output does not depend on it.
    package static func useOneArena() {
        #if canImport(Glibc)
        guard !Platform.portable else { return }
        _ = mallopt(M_ARENA_MAX, 1)
        #endif
    }

    /// Keeps buffers of up to 64 MiB in the heap, and freed memory there until the process ends,
    /// instead of mapping each large buffer afresh and unmapping it when freed (`apply`, `pack`, ZIM
    /// import, whose workers free libzim's decompressed clusters: each unmapping interrupted the
    /// other cores to flush their TLBs).
    ///
    /// Apply builds and drops many buffers of a few MiB (an update's decoded sections, previous
    /// versions, bodies in flight); each fresh mapping costs a page fault and a zeroed page per
    /// 4 KiB touched. Pack reads every file into a fresh buffer: each mapping, unmapping and trim
    /// of the heap takes the address space's lock for writing, and the other threads' page faults
    /// (a `read` into a new buffer) wait for it. Both run faster; apply peaks a little higher.
    /// The output does not depend on it.
    package static func reuseLargeBlocks() {
        #if canImport(Glibc)
        guard !Platform.portable else { return }
        _ = mallopt(M_MMAP_THRESHOLD, 64 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
        #endif
    }

    /// Maps every buffer over 128 KiB afresh and unmaps it when freed, as glibc does until a process
    /// frees its first such buffer (`verify`).
    ///
    /// glibc then raises its threshold to that buffer's size, so that the chunk buffers verify's
    /// workers free (up to 256 KiB) and its sorts' runs are carved from the heaps of the threads'
    /// arenas instead, where freed pieces stay resident: peak memory grew with the archive, and with
    /// the threshold fixed it does not (measurements: Tools/bench/NOTES.md, 'verify: one walk').
    /// The output does not depend on it.
    package static func mapLargeBlocks() {
        #if canImport(Glibc)
        guard !Platform.portable else { return }
        _ = mallopt(M_MMAP_THRESHOLD, 128 << 10)
        #endif
    }

    /// Grows the heap by `bytes` at once and asks the kernel to back it with 2 MiB pages where it
    /// can (`MADV_HUGEPAGE`; this kernel's transparent huge pages are on where asked), as glibc's
    /// `glibc.malloc.hugetlb=1` tunable does, which a process cannot set for itself (`pack`).
    ///
    /// Call after ``useOneArena()`` and ``reuseLargeBlocks()``: every thread then allocates from
    /// this one heap, and the block freed here stays in it. Nothing is touched, so nothing is
    /// resident until used; a page fault then maps 2 MiB instead of 4 KiB, and the process's end
    /// frees a few hundred pages instead of thousands, for a few MiB more peak memory (a larger
    /// block backed so costs more of it).
    package static func backHeapWithHugePages(bytes: Int = 32 << 20) {
        #if canImport(Glibc)
        guard !Platform.portable else { return }
        guard let block = malloc(bytes) else { return }
        let start = UInt(bitPattern: block)
        free(block)
        let hugePage: UInt = 2 << 20
        let first = (start + hugePage - 1) & ~(hugePage - 1)
        let end = UInt(bitPattern: sbrk(0)) & ~(hugePage - 1)
        guard end > first, let address = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(address, Int(end - first), MADV_HUGEPAGE)
        #endif
    }

    /// Gives the free memory of every arena back to the kernel (`malloc_trim`), between two
    /// stages of one command: `diff`'s check, an apply, then starts from the memory it needs
    /// instead of on top of the pages the diff freed but glibc kept.
    package static func returnFreeMemory() {
        #if canImport(Glibc)
        guard !Platform.portable else { return }
        _ = malloc_trim(0)
        #endif
    }

    /// Whether a thread trims the heap already: one a process is enough.
    private static let trimming = Atomic<Bool>(false)

    /// Gives the free memory of every arena back to the kernel every `milliseconds`, from a
    /// thread of its own, until the process ends (`apply`, `diff`); a second call does nothing.
    ///
    /// ``reuseLargeBlocks()`` keeps freed buffers in the heap, and a buffer freed below the heap's
    /// top stays resident until a trim: a 1 M-record apply peaked 20–25 MB above its live heap
    /// for it. A trim every half second returns those pages, and costs apply no time measurably:
    /// the pages it returns are few, and a buffer made again in them faults them back in
    /// (measurements: Tools/bench/NOTES.md, "apply at 1 M in 128 MiB").
    package static func returnFreeMemoryPeriodically(milliseconds: Int = 500) {
        #if canImport(Glibc)
        guard !Platform.portable, !trimming.exchange(true, ordering: .relaxed) else { return }
        let interval = UInt32(clamping: max(1, milliseconds) * 1000)
        Thread.detachNewThread {
            while true {
                usleep(interval)
                _ = malloc_trim(0)
            }
        }
        #endif
    }
}
