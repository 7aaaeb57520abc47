import Foundation

/// Checks everything the spec lets a verifier check (spec §11.3), collecting every problem.
///
/// ```swift
/// let report = ArchiveVerifier.verify(path: "site.webarc")
/// if !report.passed { report.problems.forEach { print($0) } }
/// ```
///
/// The report lists the checks in the spec's order (`open`, `pages`, `trees`, `objects`, `chunks`,
/// `body-digests`, `layout`, `references`, `redirects`, `totals`, `appendix`), each check's problems in
/// file-offset order; `chunks` and `body-digests` run in the background while one walk over the
/// pages makes the checks of `pages`, `trees`, `objects`, `references` and `redirects`, each page
/// read and decoded once. A check skips what an earlier problem left unknown: the pages below a
/// page that fails are not read, a body with a chunk that fails has no `body-digests` check,
/// `layout` needs every page, an object that does not parse names no body. Memory stays bounded:
/// pages stream through a small cache, bodies chunk by chunk; the extents `layout` tiles, one per
/// page and chunk, are sorted in runs spilled to a temporary file (`LayoutExtents`), and so are
/// the record leaves' copies of body entries and the body tree's entries, which `trees` merges.
/// (A damaged archive may be read again where a check needs what the walk could not know.)
public enum ArchiveVerifier {
    /// Progress of the body checks: bodies and body bytes checked so far, and in all so far known.
    public typealias Progress = @Sendable (_ bodies: Int, _ totalBodies: Int, _ done: UInt64, _ total: UInt64) -> Void

    /// The checks of spec §11.3, in order.
    public static let checks = [
        "open", "pages", "trees", "objects", "chunks", "body-digests", "layout", "references", "redirects", "totals",
        "appendix",
    ]

    /// Opens and verifies the archive at `path`; an archive that does not open yields one problem.
    public static func verify(path: String, progress: Progress? = nil) -> VerificationReport {
        let reader: ArchiveReader
        do {
            // Positioned reads, not a mapping: a mapping grows RSS to the archive's size, and verify
            // must run in bounded memory on a small device (a kiosk); one read per chunk costs little.
            reader = try ArchiveReader(path: path)
            reader.limitPageCache(bytes: pageCacheBytes)
        } catch {
            var report = VerificationReport()
            report.checks = ["open"]
            report.add(
                "open", error as? WebArcError ?? .io(path: path, operation: .opening("open (\(error))"), errno: 0))
            return report
        }
        return verify(reader, progress: progress)
    }

    /// The page cache of a reader that verify opens: its walk reads each page once, so the cache
    /// serves only the interior pages of lookups (redirect targets) and the neighbours of a body
    /// leaf that the body checks read again.
    static let pageCacheBytes = 2 << 20

    /// Verifies an opened archive (its `open` check passed when it opened).
    public static func verify(_ reader: ArchiveReader, progress: Progress? = nil) -> VerificationReport {
        verify(reader, progress: progress, laneHashing: MD5Lanes.isAvailable)
    }

    /// Verifies with the body MD5s computed sixteen at a time or one by one (for the tests, which
    /// check that both find the same problems), and with the record tree and the full-text index
    /// walked beside the body tree or after it (the tests check that both give the same report).
    static func verify(
        _ reader: ArchiveReader, progress: Progress? = nil, laneHashing: Bool, walksApart: Bool = true
    ) -> VerificationReport {
        let verification = Verification(reader: reader, progress: progress, laneHashing: laneHashing)
        // The bodies (most of the work, on every core) are checked while the record tree's pages,
        // the trees and the records are: they need only the metadata and the body leaves that
        // `pages` found first, and a source still downloading (`verify URL`) delivers them meanwhile.
        var bodies: BodyCheckJob?
        if walksApart {
            let (job, walksMet) = verification.checkPagesApart()
            // Two walks that met on one page would each have read it, where one walk after the
            // other reads it once: the archive is damaged, and is verified again the other way.
            guard !walksMet else {
                job.group.wait()
                return verify(reader, progress: progress, laneHashing: laneHashing, walksApart: false)
            }
            bodies = job
        } else {
            verification.checkPages(bodyTreeRead: { bodies = verification.startBodyChecks() })
        }
        verification.finishTrees()
        verification.finishRecords()
        verification.finishBodyChecks(bodies ?? verification.startBodyChecks())
        verification.checkLayout()
        verification.checkTotals()
        verification.checkAppendix()
        return verification.finish()
    }
}

/// One verification's state: what the `pages` walk found, what later checks need, and the
/// problems of each check until they are sorted into the report.
final class Verification {
    let reader: ArchiveReader
    let progress: ArchiveVerifier.Progress?
    /// Problems by check, with the error each came from (warnings have none) and the step of the
    /// check that found it (``TreesStep``; 0 for checks of one step).
    private var problems: [String: [(problem: VerificationReport.Problem, error: WebArcError?, step: Int)]] = [:]
    var report = VerificationReport()

    // Found by `pages`.
    var metadataReadable = false
    var recordLeaves: [PageReference] = []
    var bodyLeaves: [PageReference] = []
    /// The body leaves' entries that read, and their bytes, for the body checks' progress.
    var bodyTotals: (bodies: Int, bytes: UInt64) = (0, 0)
    /// Shared by the walks of one verification (``checkPagesApart()``).
    let pageExtents: LayoutExtents
    var incomplete: Set<Page.Tree> = []
    var visited: Set<PageReference> = []

    // Found by `trees`, when the body tree could be read whole: every body of it (an archive whose
    // trees are out of order), or the bodies the record leaves copy and the body tree lacks.
    var bodyIndex: [BodyReference: (length: UInt64, entry: SHA256Hash)]?
    var missingFromBodyTree: Set<BodyReference>?
    var bodyEntryCount: UInt64 = 0
    var recordEntryCount: UInt64 = 0
    /// The record leaves' copies of body entries and the body tree's entries, collected by the
    /// walk for the copy check (``finishTrees()``).
    var bodyCopies = SpilledSort<BodyCopy>(prefix: "webarc-verify-copies", runBytes: 4 << 20)
    let bodyTreeEntries = SpilledSort<BodyCopy>(prefix: "webarc-verify-bodies", runBytes: 4 << 20)
    /// The first error spilling either of them met (the copy check is then made in memory).
    var bodyCopiesFailure: (any Error)?
    /// The body tree's entries in file order, for the body checks (``queue(_:_:)``).
    let bodyQueue = SpilledSort<QueuedBody>(prefix: "webarc-verify-queue", runBytes: 4 << 20)
    /// The first error spilling it met (the body checks then read the body leaves again).
    var bodyQueueFailure: (any Error)?
    /// The last key of the record leaf before, for `trees`.
    var previousRecordKey: [UInt8]?
    /// The last reference of the body leaf before, for `trees`.
    var previousBodyReference: BodyReference?
    /// Whether the archive requires feature bit 0 (layers), for `objects`.
    var layered = false

    // Counted by `trees` (body entries) and the record checks, for `totals`; incomplete when a
    // record does not parse.
    var walkedTotals = ArchiveTotals.Counter()
    var totalsComplete = true

    // Found by `chunks`.
    var chunkExtents: LayoutExtents?
    var failedBodies: Set<BodyReference> = []

    /// Whether bodies' MD5s are computed sixteen at a time (``BodyLaneChecker``) or one by one
    /// with `Insecure.MD5`; both make the same checks (the tests run both).
    let laneHashing: Bool

    init(
        reader: ArchiveReader, progress: ArchiveVerifier.Progress?, laneHashing: Bool = MD5Lanes.isAvailable,
        pageExtents: LayoutExtents = LayoutExtents()
    ) {
        self.reader = reader
        self.progress = progress
        self.laneHashing = laneHashing
        self.pageExtents = pageExtents
    }

    func add(_ check: String, _ error: Error, record: UInt32? = nil, url: String? = nil, step: Int = 0) {
        let error =
            error as? WebArcError ?? .io(path: reader.path, operation: .transferring("verify (\(error))"), errno: 0)
        problems[check, default: []].append(
            (VerificationReport.Problem(check: check, error: error, record: record, url: url), error, step))
    }

    func warn(
        _ check: String, code: String, _ message: String, offset: UInt64? = nil, record: UInt32? = nil,
        url: String? = nil
    ) {
        problems[check, default: []].append(
            (
                VerificationReport.Problem(
                    check: check, code: code, severity: .warning, message: message, offset: offset, record: record,
                    url: url), nil, 0
            ))
    }

    func hasProblems(in check: String) -> Bool { !(problems[check]?.isEmpty ?? true) }

    /// Whether `check` found a problem in a step before `step`.
    func hasProblems(in check: String, before step: Int) -> Bool {
        problems[check]?.contains { $0.step < step } ?? false
    }

    /// How many problems each check has found so far.
    var problemCounts: [String: Int] { problems.mapValues(\.count) }

    /// Takes the problems `part` found: each check's before those this verification found since it
    /// had `counts` (``problemCounts``), or after all of them when `counts` is nil; so that they are
    /// listed in the order one walk after the other finds them.
    func takeProblems(of part: Verification, at counts: [String: Int]? = nil) {
        for (check, found) in part.problems {
            let index = counts.map { $0[check] ?? 0 } ?? problems[check]?.count ?? 0
            problems[check, default: []].insert(contentsOf: found, at: index)
        }
    }

    /// Drops the problems `check` found (before it is made again).
    func clearProblems(in check: String) { problems[check] = nil }

    /// Edits the problems of `check` that came from an error.
    func rewrite(_ check: String, _ change: (inout VerificationReport.Problem, WebArcError) -> Void) {
        guard var list = problems[check] else { return }
        for index in list.indices {
            if let error = list[index].error { change(&list[index].problem, error) }
        }
        problems[check] = list
    }

    /// The report: checks in the spec's order, each check's problems by file offset, then by
    /// step, then in the order found.
    func finish() -> VerificationReport {
        report.checks = ArchiveVerifier.checks
        for check in ArchiveVerifier.checks {
            let found = problems[check] ?? []
            report.problems += found.enumerated().sorted { lhs, rhs in
                let left = lhs.element.problem.offset.map { Int128($0) } ?? -1
                let right = rhs.element.problem.offset.map { Int128($0) } ?? -1
                guard left == right else { return left < right }
                return (lhs.element.step, lhs.offset) < (rhs.element.step, rhs.offset)
            }.map(\.element.problem)
        }
        return report
    }

    /// Calls `visit` with each record leaf that reads, in key order, and the position in key order
    /// of its first entry.
    func forEachRecordLeaf(_ visit: (RecordLeaf, _ firstIndex: Int) throws -> Void) rethrows {
        var index = 0
        for reference in recordLeaves {
            guard case .recordLeaf(let leaf)? = try? reader.page(reference, .node(.records)) else { continue }
            try visit(leaf, index)
            index += leaf.entries.count
        }
    }

    /// Each body leaf that reads, in key order.
    func forEachBodyLeaf(_ visit: (BodyLeaf, PageReference) throws -> Void) rethrows {
        for reference in bodyLeaves {
            guard case .bodyLeaf(let leaf)? = try? reader.page(reference, .node(.bodies)) else { continue }
            try visit(leaf, reference)
        }
    }

    /// A record entry's object with its known fields checked, or nil when it does not parse.
    func parsed(_ leaf: RecordLeaf, _ index: Int) -> (object: DecodedObject, parsed: RecordObjects.Parsed)? {
        guard let object = try? leaf.object(index), let parsed = try? RecordObjects.parse(object) else { return nil }
        return (object, parsed)
    }
}
