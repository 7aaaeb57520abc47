import Crypto
import Foundation
import Synchronization

/// Checks everything the spec lets a reader check (spec §8), collecting every problem.
///
/// ```swift
/// let report = ArchiveVerifier.verify(path: "site.webarc")
/// if !report.passed { report.problems.forEach { print($0) } }
/// ```
public enum ArchiveVerifier {
    /// Progress of the body-digest check: bodies and body bytes hashed so far, and in all.
    public typealias Progress = @Sendable (_ bodies: Int, _ totalBodies: Int, _ done: UInt64, _ total: UInt64) -> Void

    /// Opens and verifies the archive at `path`; an archive that does not open yields one problem.
    public static func verify(path: String, progress: Progress? = nil) -> VerificationReport {
        let reader: ArchiveReader
        do {
            // Mapped: verify touches every structure, and slicing a mapping is cheaper than a
            // positioned read per entry.
            reader = try ArchiveReader(path: path, mapped: true)
        } catch let error as WebArcError {
            var report = VerificationReport()
            report.checks = ["header", "sections"]
            report.add(openCheck(for: error), error)
            return report
        } catch {
            var report = VerificationReport()
            report.add("header", .io(path: path, operation: "open", errno: 0))
            return report
        }
        return verify(reader, progress: progress)
    }

    static func openCheck(for error: WebArcError) -> String {
        switch error {
        case .badSectionTable, .unsupportedSection, .corruptIndex: "sections"
        default: "header"
        }
    }

    /// Verifies an opened archive.
    public static func verify(_ reader: ArchiveReader, progress: Progress? = nil) -> VerificationReport {
        var report = VerificationReport()
        report.checks = ["header", "sections"]
        run("appendix", &report) { try checkAppendix(reader); return [] }
        run("index-digest", &report) { try checkIndexDigest(reader); return [] }
        run("strings", &report) { try checkStrings(reader) }
        run("chunks", &report) { try checkChunks(reader) }
        run("bodies", &report) { try checkBodyTable(reader) }
        checkObjectsAndLookup(reader, &report)
        checkBodyDigests(reader, &report, progress: progress)
        return report
    }

    /// Runs one named check: the problems it returns are added, and a thrown error (one that stops
    /// the check because what follows cannot be read) is added as its last problem.
    private static func run(_ check: String, _ report: inout VerificationReport, _ body: () throws -> [WebArcError]) {
        report.checks.append(check)
        do {
            for problem in try body() { report.add(check, problem) }
        } catch let error as WebArcError {
            report.add(check, error)
        } catch {
            report.add(check, .corruptIndex(section: check, offset: 0, reason: "\(error)"))
        }
    }

    static func checkAppendix(_ reader: ArchiveReader) throws {
        let header = reader.header
        if reader.fileSize > header.archiveLength && header.minorVersion == 0 {
            throw WebArcError.trailingData(offset: header.archiveLength, count: reader.fileSize - header.archiveLength)
        }
    }

    static func checkIndexDigest(_ reader: ArchiveReader) throws {
        let header = reader.header
        var hasher = SHA256()
        var offset = header.indexOffset
        while offset < header.archiveLength {
            let count = Int(min(UInt64(1 << 20), header.archiveLength - offset))
            hasher.update(data: try reader.source.read(at: offset, count: count))
            offset += UInt64(count)
        }
        guard Array(hasher.finalize()) == header.indexDigest else {
            throw WebArcError.indexDigest(offset: header.indexOffset, length: header.archiveLength - header.indexOffset)
        }
    }

    /// Every string that is not UTF-8 is a problem; string bounds out of order stop the check.
    static func checkStrings(_ reader: ArchiveReader) throws -> [WebArcError] {
        var problems: [WebArcError] = []
        let table = reader.strings
        let section = table.section
        let bytes = try reader.source.read(at: section.offset, count: Int(section.length))
        var ends = ByteReader(Array(bytes[8..<8 + 8 * (table.count + 1)]), baseOffset: section.offset + 8, section: "STRS")
        var previous = try ends.readUInt64()
        guard previous == 0 else { throw WebArcError.corruptIndex(section: "STRS", offset: section.offset + 8, reason: "ends[0] is \(previous), not 0") }
        let area = bytes[(8 + 8 * (table.count + 1))...]
        for index in 0..<table.count {
            let entryOffset = ends.offset
            let end = try ends.readUInt64()
            guard end >= previous, end <= table.areaLength else {
                throw WebArcError.corruptIndex(section: "STRS", offset: entryOffset, reason: "string \(index) ends at \(end), out of order or bounds")
            }
            let start = area.startIndex + Int(previous)
            if String(validating: area[start..<area.startIndex + Int(end)], as: UTF8.self) == nil {
                problems.append(.corruptIndex(section: "STRS", offset: table.areaOffset + previous, reason: "string \(index) is not valid UTF-8"))
            }
            previous = end
        }
        guard previous == table.areaLength else {
            throw WebArcError.corruptIndex(section: "STRS", offset: ends.offset, reason: "strings end at \(previous), the area at \(table.areaLength)")
        }
        return problems
    }

    /// Every chunk entry out of bounds, every gap or overlap in `BDAT` and non-zero padding is a problem.
    static func checkChunks(_ reader: ArchiveReader) throws -> [WebArcError] {
        var problems: [WebArcError] = []
        var extents: [(offset: UInt64, length: UInt64)] = []
        extents.reserveCapacity(reader.chunkCount)
        for index in 0..<reader.chunkCount {
            var cursor = try reader.chunkTable.entry(index, from: reader.source)
            let entry = try ChunkEntry(parsing: &cursor)
            do {
                try reader.check(entry, index: UInt64(index))
            } catch let error as WebArcError {
                problems.append(error)
                // An entry whose bytes still lie inside BDAT covers them (an unknown codec), so that
                // one bad field is not also reported as a gap.
                guard entry.lies(within: reader.sections.bodyData) else { continue }
            }
            extents.append((entry.offset, UInt64(entry.storedLength)))
        }
        extents.sort { ($0.offset, $0.length) < ($1.offset, $1.length) }
        let data = reader.sections.bodyData
        var position = data.offset
        var last: (offset: UInt64, length: UInt64)?
        for extent in extents {
            if let last, last == extent { continue }
            if extent.offset != position {
                problems.append(.corruptIndex(
                    section: "CTAB", offset: extent.offset,
                    reason: extent.offset > position ? "BDAT bytes \(position)..<\(extent.offset) belong to no chunk" : "chunks overlap at \(extent.offset)"))
            }
            position = max(position, extent.offset + extent.length)
            last = extent
        }
        if position < data.end {
            problems.append(.corruptIndex(section: "BDAT", offset: position, reason: "BDAT bytes \(position)..<\(data.end) belong to no chunk"))
        }
        let padding = try reader.source.read(at: data.end, count: Int(reader.header.indexOffset - data.end))
        if let nonZero = padding.firstIndex(where: { $0 != 0 }) {
            problems.append(.corruptIndex(section: "padding", offset: data.end + UInt64(nonZero), reason: "padding before the index is not zero"))
        }
        return problems
    }

    /// Every body entry out of order, or whose chunks do not add up to its length, is a problem.
    static func checkBodyTable(_ reader: ArchiveReader) throws -> [WebArcError] {
        var problems: [WebArcError] = []
        var previous: BodyReference?
        for index in 0..<reader.bodyCount {
            let entry = try reader.bodyEntry(at: index)
            if let previous, !(previous < entry.reference) {
                problems.append(.corruptIndex(section: "BTAB", offset: reader.bodyTable.offset(of: index), reason: "body \(entry.reference) is out of order"))
            }
            previous = entry.reference
            let chunks: [(index: UInt64, entry: ChunkEntry)]
            do {
                chunks = try reader.chunkEntries(of: entry)
            } catch let error as WebArcError {
                problems.append(error)
                continue
            }
            let sum = chunks.reduce(UInt64(0)) { $0 + UInt64($1.entry.rawLength) }
            if sum != entry.length {
                problems.append(.corruptIndex(
                    section: "BTAB", offset: reader.bodyTable.offset(of: index) + 24,
                    reason: "body \(entry.reference) length \(entry.length) but its chunks hold \(sum) bytes"))
            }
        }
        return problems
    }

    static func checkBodyDigests(_ reader: ArchiveReader, _ report: inout VerificationReport, progress: Progress?) {
        report.checks.append("body-digests")
        var entries: [BodyEntry] = []
        for index in 0..<reader.bodyCount {
            if let entry = try? reader.bodyEntry(at: index) { entries.append(entry) }
        }
        let total = entries.reduce(UInt64(0)) { $0 + $1.length }
        let done = Atomic<UInt64>(0)
        let hashed = Atomic<Int>(0)
        let failures = Mutex<[(Int, WebArcError)]>([])
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let frozen = entries
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: frozen.count, by: workers) {
                do {
                    try reader.verifyBody(frozen[index])
                } catch let error as WebArcError {
                    failures.withLock { $0.append((index, error)) }
                } catch {
                    failures.withLock { $0.append((index, .corruptChunk(chunk: 0, offset: 0))) }
                }
                let now = done.add(frozen[index].length, ordering: .relaxed).newValue
                let bodies = hashed.add(1, ordering: .relaxed).newValue
                progress?(bodies, frozen.count, now, total)
            }
        }
        let failed = failures.withLock { $0 }.sorted { $0.0 < $1.0 }
        let users = failed.isEmpty ? [:] : firstRecords(in: reader, using: Set(failed.map { frozen[$0.0].reference }))
        for (index, error) in failed {
            let user = users[frozen[index].reference]
            report.add("body-digests", error, record: user?.record, url: user?.url)
        }
        report.bodies = entries.count
        report.bodyBytes = total
    }

    /// For each body in `bodies`, the first record (in lookup order) that serves it, so that a damaged
    /// body is reported with a record and URL a person can act on. Only run when a body failed.
    static func firstRecords(in reader: ArchiveReader, using bodies: Set<BodyReference>) -> [BodyReference: (record: UInt32, url: String)] {
        var found: [BodyReference: (record: UInt32, url: String)] = [:]
        for index in 0..<reader.lookupTable.count where found.count < bodies.count {
            guard let (_, objectID) = try? reader.lookupEntry(index),
                case .response(let response)? = try? reader.record(objectID),
                bodies.contains(response.body), found[response.body] == nil
            else { continue }
            found[response.body] = (objectID, response.request.url)
        }
        return found
    }
}
