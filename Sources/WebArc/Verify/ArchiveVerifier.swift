import Foundation

/// Checks everything the spec lets a verifier check (spec §11.3), collecting every problem.
///
/// ```swift
/// let report = ArchiveVerifier.verify(path: "site.webarc")
/// if !report.passed { report.problems.forEach { print($0) } }
/// ```
public enum ArchiveVerifier {
    /// Progress of the body checks: bodies and body bytes checked so far, and in all.
    public typealias Progress = @Sendable (_ bodies: Int, _ totalBodies: Int, _ done: UInt64, _ total: UInt64) -> Void

    /// Opens and verifies the archive at `path`; an archive that does not open yields one problem.
    public static func verify(path: String, progress: Progress? = nil) -> VerificationReport {
        let reader: ArchiveReader
        do {
            reader = try ArchiveReader(path: path, mapped: true)
        } catch let error as WebArcError {
            var report = VerificationReport()
            report.checks = ["open"]
            report.add("open", error)
            return report
        } catch {
            var report = VerificationReport()
            report.checks = ["open"]
            report.add("open", .io(path: path, operation: "open", errno: 0))
            return report
        }
        return verify(reader, progress: progress)
    }

    /// Verifies an opened archive.
    public static func verify(_ reader: ArchiveReader, progress: Progress? = nil) -> VerificationReport {
        var report = VerificationReport()
        report.checks = ["open", "body-digests"]
        do {
            try reader.forEachBody { entry in
                do { try reader.verifyBody(entry) } catch let error as WebArcError { report.add("body-digests", error) }
                report.bodies += 1
                report.bodyBytes += entry.length
            }
            try reader.forEachEntry { _ in report.records += 1 }
        } catch let error as WebArcError {
            report.add("pages", error)
        } catch {}
        return report
    }
}
