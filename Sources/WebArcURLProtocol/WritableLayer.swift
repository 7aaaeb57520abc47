import Dispatch
import Foundation
import Synchronization
import WebArc

/// The app's own update archive over a shipped bundle: where refreshed and live responses go,
/// read before the bundle, never written into it.
///
/// The file is an update archive (spec §13) whose bases are the bundle's layers, so a body equal
/// to one the bundle holds is not stored again, and a changed body is coded as a Zstandard delta
/// against the bundle's version when that is shorter. New entries wait in memory and the whole layer is
/// rewritten with them (its own records, minus those the new entries replace, plus the new
/// ones): to a temporary file, synced, renamed, as ``ArchiveWriter`` does, so a crash or a full
/// disk leaves the previous layer intact. Rewrites run one at a time on their own queue, and
/// entries that arrive during a rewrite go into the next one together (a natural debounce).
/// Requests already answering from the previous file keep reading it (its descriptor stays open).
///
/// At open, an existing file that is not an update over exactly this bundle (by archive digest
/// and length), or that cannot be read, is discarded: deleted, with the reason kept in
/// ``discarded``. A new bundle invalidates what was refreshed over the old one.
final class WritableLayer: Sendable {
    /// Where the layer lives.
    let path: String
    /// The bundle's layers, top first: the layer's bases.
    let bundle: [ArchiveReader]
    /// Why an existing file at ``path`` was discarded at open; nil when none was.
    let discarded: WebArcURLProtocolError?

    private struct State {
        var top: ArchiveReader?
        var pending: [(key: String, entry: LayerEntry)] = []
        var waiting: [@Sendable () -> Void] = []
        var writing = false
        var writes = 0
        var lastError: WebArcURLProtocolError?
    }

    private let state: Mutex<State>
    private let queue = DispatchQueue(label: "webarc.cache.layer")

    /// Opens the layer at `path` over `bundle` (top first), discarding a stale or unreadable file.
    init(path: String, bundle: [ArchiveReader]) {
        self.path = path
        self.bundle = bundle
        var top: ArchiveReader?
        var discarded: WebArcURLProtocolError?
        if FileManager.default.fileExists(atPath: path) {
            do {
                let reader = try ArchiveReader(path: path, bases: bundle)
                try reader.validateBases()
                top = reader
            } catch {
                discarded = .staleLayer(path: path, error: WebArcURLProtocolError.webArcError(error, path: path))
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        self.discarded = discarded
        state = Mutex(State(top: top))
    }

    /// The archives to answer from, top first: the layer (once it exists), then the bundle.
    var layers: [ArchiveReader] { state.withLock { $0.top.map { [$0] } ?? [] } + bundle }

    /// How many rewrites succeeded since open.
    var writes: Int { state.withLock { $0.writes } }

    /// The last rewrite's failure, if the last rewrite failed; the previous file then stays.
    var lastError: WebArcURLProtocolError? { state.withLock { $0.lastError } }

    /// Queues `entries` for the next rewrite and returns once a rewrite that includes them has
    /// ended (with or without success; see ``lastError``).
    func add(_ entries: [LayerEntry]) async {
        guard !entries.isEmpty else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enqueue(entries) { continuation.resume() }
        }
    }

    /// Queues `entries` for the next rewrite and returns at once; `written` runs when a rewrite
    /// that includes them has ended. A ``flush()`` called after this returns waits for them.
    func enqueue(_ entries: [LayerEntry], written: @escaping @Sendable () -> Void = {}) {
        guard !entries.isEmpty else { return written() }
        let start = state.withLock { state in
            state.pending += entries.map { ($0.key, $0) }
            state.waiting.append(written)
            defer { state.writing = true }
            return !state.writing
        }
        if start { queue.async { self.drain() } }
    }

    /// Returns once every entry queued before the call is written (or its rewrite failed).
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// Rewrites the layer until nothing is pending.
    private func drain() {
        while true {
            let batch = state.withLock {
                state -> (
                    top: ArchiveReader?, pending: [(key: String, entry: LayerEntry)], waiting: [@Sendable () -> Void]
                )? in
                guard !state.pending.isEmpty else {
                    state.writing = false
                    return nil
                }
                defer {
                    state.pending = []
                    state.waiting = []
                }
                return (state.top, state.pending, state.waiting)
            }
            guard let batch else { return }
            do {
                let top = try rewrite(keeping: batch.top, adding: batch.pending)
                state.withLock {
                    $0.top = top
                    $0.writes += 1
                    $0.lastError = nil
                }
            } catch {
                state.withLock {
                    $0.lastError = .layerWrite(path: path, error: WebArcURLProtocolError.webArcError(error, path: path))
                }
            }
            for resume in batch.waiting { resume() }
        }
    }

    /// Writes a new layer file: `old`'s records except the keys `entries` replace, then `entries`
    /// (the last entry of a key wins); returns it opened over the bundle.
    private func rewrite(
        keeping old: ArchiveReader?, adding entries: [(key: String, entry: LayerEntry)]
    ) throws -> ArchiveReader {
        var latest: [String: Int] = [:]
        for (index, item) in entries.enumerated() { latest[item.key] = index }
        let writer = try ArchiveWriter(path: path, options: ArchiveWriter.Options(overwrite: true), bases: bundle)
        try writer.failing {
            try old?.forEachEntry { entry in
                // Coded against the bundle again, so that a delta stays a delta across rewrites.
                if latest[entry.key] == nil {
                    try writer.copy(entry.record, from: old!, previous: try previousVersion(of: entry.key))
                }
            }
            for (index, item) in entries.enumerated() where latest[item.key] == index {
                switch item.entry {
                case .response(let response):
                    try writer.add(try response.record(in: writer, previous: try previousVersion(of: item.key)))
                case .redirect(let redirect): try writer.add(redirect)
                }
            }
            try writer.finish()
        }
        let reader = try ArchiveReader(path: path, bases: bundle)
        try reader.validateBases()
        return reader
    }

    /// The bundle's body for `key` (its topmost layer holding the key), for a changed body to be
    /// coded as a delta against; nil when the bundle has none, or it is too large to read whole.
    private func previousVersion(of key: String) throws -> ArchiveWriter.PreviousVersion? {
        for (index, base) in bundle.enumerated() {
            guard let entry = try base.lookup(key: key) else { continue }
            guard case .response(let response) = entry.record, response.bodyLength > 0,
                response.bodyLength <= Self.deltaLimit
            else { return nil }
            return ArchiveWriter.PreviousVersion(base: index, body: try base.bodyEntry(response.body))
        }
        return nil
    }

    /// Changed bodies up to this size are coded against the bundle's version (read whole).
    static let deltaLimit: UInt64 = 8 << 20
}
