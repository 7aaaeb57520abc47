#if os(Linux)
import CMalloc
#endif

/// glibc's per-thread allocation arenas, which `pack` gives up for one shared arena (issue 11).
///
/// glibc gives each thread that allocates its own arena, and memory freed into an arena stays
/// there for that arena's next allocations. Pack's workers read and compress files in one arena
/// each while the writer frees their buffers, so every arena came to hold about a window's worth
/// of free memory: on the big corpus (10 166 files, 1.1 GiB) peak RSS fell from 61.6 to 47.3 MiB
/// with one arena (two arenas: 58.5 MiB). Pack was not slower (multi, 5 runs each at load 7:
/// median 4.4 s with one arena, 4.9 s without): a file costs a few large allocations, so the
/// arena's lock is seldom contended. The output does not depend on it.
enum MallocArenas {
    /// Makes every thread created from now on allocate from the main arena. Call it before the
    /// threads that allocate start; other commands (`serve` above all) keep per-thread arenas.
    static func useOne() {
        #if os(Linux)
        _ = mallopt(M_ARENA_MAX, 1)
        #endif
    }
}
