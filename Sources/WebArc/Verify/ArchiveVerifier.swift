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
    /// Progress of the body-digest check: body bytes hashed so far and in all.
    public typealias Progress = @Sendable (_ done: UInt64, _ total: UInt64) -> Void

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
        run("appendix", &report) { try checkAppendix(reader) }
        run("index-digest", &report) { try checkIndexDigest(reader) }
        run("strings", &report) { try checkStrings(reader) }
        run("chunks", &report) { try checkChunks(reader) }
        run("bodies", &report) { try checkBodyTable(reader) }
        checkObjectsAndLookup(reader, &report)
        checkBodyDigests(reader, &report, progress: progress)
        return report
    }

    private static func run(_ check: String, _ report: inout VerificationReport, _ body: () throws -> Void) {
        report.checks.append(check)
        do {
            try body()
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

    static func checkStrings(_ reader: ArchiveReader) throws {
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
            guard String(validating: area[start..<area.startIndex + Int(end)], as: UTF8.self) != nil else {
                throw WebArcError.corruptIndex(section: "STRS", offset: table.areaOffset + previous, reason: "string \(index) is not valid UTF-8")
            }
            previous = end
        }
        guard previous == table.areaLength else {
            throw WebArcError.corruptIndex(section: "STRS", offset: ends.offset, reason: "strings end at \(previous), the area at \(table.areaLength)")
        }
    }

    static func checkChunks(_ reader: ArchiveReader) throws {
        var extents: [(offset: UInt64, length: UInt64)] = []
        extents.reserveCapacity(reader.chunkCount)
        for index in 0..<reader.chunkCount {
            var cursor = try reader.chunkTable.entry(index, from: reader.source)
            let entry = try ChunkEntry(parsing: &cursor)
            try reader.check(entry, index: UInt64(index))
            extents.append((entry.offset, UInt64(entry.storedLength)))
        }
        extents.sort { ($0.offset, $0.length) < ($1.offset, $1.length) }
        let data = reader.sections.bodyData
        var position = data.offset
        var last: (offset: UInt64, length: UInt64)?
        for extent in extents {
            if let last, last == extent { continue }
            guard extent.offset == position else {
                throw WebArcError.corruptIndex(
                    section: "CTAB", offset: extent.offset,
                    reason: extent.offset > position ? "BDAT bytes \(position)..<\(extent.offset) belong to no chunk" : "chunks overlap at \(extent.offset)")
            }
            position += extent.length
            last = extent
        }
        guard position == data.end else {
            throw WebArcError.corruptIndex(section: "BDAT", offset: position, reason: "BDAT bytes \(position)..<\(data.end) belong to no chunk")
        }
        let padding = try reader.source.read(at: data.end, count: Int(reader.header.indexOffset - data.end))
        if let nonZero = padding.firstIndex(where: { $0 != 0 }) {
            throw WebArcError.corruptIndex(section: "padding", offset: data.end + UInt64(nonZero), reason: "padding before the index is not zero")
        }
    }

    static func checkBodyTable(_ reader: ArchiveReader) throws {
        var previous: BodyReference?
        for index in 0..<reader.bodyCount {
            let entry = try reader.bodyEntry(at: index)
            if let previous, !(previous < entry.reference) {
                throw WebArcError.corruptIndex(section: "BTAB", offset: reader.bodyTable.offset(of: index), reason: "body \(entry.reference) is out of order")
            }
            previous = entry.reference
            let chunks = try reader.chunkEntries(of: entry)
            let sum = chunks.reduce(UInt64(0)) { $0 + UInt64($1.entry.rawLength) }
            guard sum == entry.length else {
                throw WebArcError.corruptIndex(
                    section: "BTAB", offset: reader.bodyTable.offset(of: index) + 24,
                    reason: "body \(entry.reference) length \(entry.length) but its chunks hold \(sum) bytes")
            }
        }
    }

    static func checkBodyDigests(_ reader: ArchiveReader, _ report: inout VerificationReport, progress: Progress?) {
        report.checks.append("body-digests")
        var entries: [BodyEntry] = []
        for index in 0..<reader.bodyCount {
            if let entry = try? reader.bodyEntry(at: index) { entries.append(entry) }
        }
        let total = entries.reduce(UInt64(0)) { $0 + $1.length }
        let done = Atomic<UInt64>(0)
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
                progress?(now, total)
            }
        }
        for (_, error) in failures.withLock({ $0 }).sorted(by: { $0.0 < $1.0 }) { report.add("body-digests", error) }
        report.bodies = entries.count
        report.bodyBytes = total
    }
}
