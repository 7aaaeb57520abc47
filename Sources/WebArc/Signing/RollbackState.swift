import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory that remembers, per key, the highest sequence accepted and its archive digest, so
/// that an older release signed by the same key is refused (`rolled-back`).
///
/// One file per key ID, `KEYID.state`, holding one line `KEYID SEQUENCE DIGEST` (decimal sequence,
/// 64 hexadecimal digits of archive digest). Updates go through a temporary file renamed into
/// place; a lock file (`.lock`, `flock`) makes check-and-record one step across processes. A state
/// file that does not parse is refused (`badRollbackState`), never taken as "nothing accepted":
/// delete it to reset that key. Spec: §12.4 Rollback.
public struct RollbackState: Sendable {
    /// The state directory.
    public let directory: String

    /// What was accepted from one key.
    public struct Entry: Equatable, Sendable {
        /// The highest sequence accepted.
        public var sequence: UInt64
        /// The archive digest accepted with it.
        public var archiveDigest: [UInt8]
    }

    /// Uses `directory`, creating it (mode 0700) when it does not exist.
    ///
    /// - Throws: `io` when it cannot be created or is not a directory.
    public init(directory: String) throws {
        self.directory = directory
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw WebArcError.io(path: directory, operation: .creating("create state directory"), errno: errno)
        }
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw WebArcError.io(path: directory, operation: .opening("open state directory"), errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw WebArcError.io(path: directory, operation: .opening("open state directory"), errno: ENOTDIR)
        }
    }

    /// What was accepted from `keyID`, nil when nothing was.
    ///
    /// - Throws: ``WebArcError/badRollbackState(path:reason:)`` when the file does not parse; `io`.
    public func entry(for keyID: KeyID) throws -> Entry? {
        let path = file(for: keyID)
        guard access(path, F_OK) == 0 else { return nil }
        func bad(_ reason: String) -> WebArcError {
            .badRollbackState(path: path, reason: reason + ": delete it to reset this key")
        }
        let bytes = try KeyFile.read(path) { bad("\($0) bytes is too long for a state file") }
        guard let text = UTF8Text.validated(bytes), text.hasSuffix("\n") else { throw bad("not one line of text") }
        let fields = text.dropLast().split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == "\(keyID)"[...] else {
            throw bad("expected \"\(keyID) SEQUENCE DIGEST\"")
        }
        guard fields[1].allSatisfy(\.isASCII), let sequence = UInt64(fields[1]) else {
            throw bad("the sequence is not a number")
        }
        guard let digest = Self.bytes(hex: fields[2]), digest.count == 32 else {
            throw bad("the digest is not 64 hexadecimal digits")
        }
        return Entry(sequence: sequence, archiveDigest: digest)
    }

    /// Refuses a decision older than what was accepted, else records it.
    ///
    /// Each verified block by a trusted key is checked against its key's entry: a lower sequence,
    /// or the same sequence with another archive digest, is `rolledBack` (and nothing is
    /// recorded); then every key whose sequence rose is recorded.
    /// - Throws: ``WebArcError/rolledBack(keyID:sequence:accepted:offset:)``; `badRollbackState`
    ///   or `io` when the state cannot be read or written.
    public func admit(_ decision: TrustDecision) throws {
        let lock = try lockDirectory()
        defer { close(lock) }
        var updates: [KeyID: UInt64] = [:]
        for block in decision.verified {
            if let entry = try entry(for: block.keyID) {
                if block.sequence < entry.sequence
                    || (block.sequence == entry.sequence && entry.archiveDigest != decision.archiveDigest)
                {
                    throw WebArcError.rolledBack(
                        keyID: "\(block.keyID)", sequence: block.sequence, accepted: entry.sequence,
                        offset: decision.archiveLength)
                }
                if block.sequence == entry.sequence { continue }
            }
            updates[block.keyID] = max(updates[block.keyID] ?? 0, block.sequence)
        }
        for (keyID, sequence) in updates.sorted(by: { $0.key < $1.key }) {
            let file = try OutputFile(targetPath: file(for: keyID), overwrite: true)
            let digest = SHA256Hash(bytes: decision.archiveDigest)?.hex ?? ""
            try file.append(Array("\(keyID) \(sequence) \(digest)\n".utf8))
            try file.commit(overwrite: true)
        }
    }

    /// The state file of `keyID`.
    public func file(for keyID: KeyID) -> String { directory + "/\(keyID).state" }

    /// Takes the directory's exclusive lock; the caller closes the descriptor to release it.
    private func lockDirectory() throws -> Int32 {
        let path = directory + "/.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WebArcError.io(path: path, operation: .creating("create lock file"), errno: errno) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(fd)
                throw WebArcError.io(path: path, operation: .transferring("lock"), errno: code)
            }
        }
        return fd
    }

    static func bytes(hex text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            return nil
        }
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }
}
