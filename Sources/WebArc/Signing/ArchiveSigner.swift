import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Signs an archive file: adds a signature block to its appendix, or replaces the block of the
/// same key, leaving the archive's bytes — and so its archive digest — untouched.
///
/// ```swift
/// let key = try SigningKey(contentsOf: "publisher.key")
/// let block = try ArchiveSigner.sign(path: "site.webarc", with: key, sequence: 8)
/// print(block.keyID)
/// ```
/// The signed file is written beside the original (the archive bytes copied in the kernel where
/// possible, then the new appendix), synced and renamed over it, keeping its permissions; the
/// original is untouched on any failure. Spec: §12.1, §12.2.
public enum ArchiveSigner {
    /// Signs the archive at `path` with `key`.
    ///
    /// Blocks of other keys and other types stay, in order; an existing signature block of the same
    /// key is replaced where it stood (and any further ones of that key dropped), otherwise the new
    /// block is appended.
    /// - Parameters:
    ///   - path: the archive file, rewritten in place (its archive bytes unchanged).
    ///   - key: the publisher's private key.
    ///   - sequence: the release number; later releases need higher ones (spec §12.4).
    ///   - created: when it was signed (default now).
    ///   - expires: when the signature stops being accepted; nil for never.
    /// - Returns: the new signature block.
    /// - Throws: the errors of opening (`truncated`, `trailerChecksum`, `badAppendix`, …); `badAppendix`
    ///   when the existing appendix breaks §12.1 or the new one would exceed 1 MiB; `io`.
    @discardableResult
    public static func sign(
        path: String, with key: SigningKey, sequence: UInt64, created: Date = Date(), expires: Date? = nil
    ) throws -> SignatureBlock {
        let archive = try ArchiveReader(path: path)
        let existing = try archive.appendixBytes()
        let block = try SignatureBlock(
            signing: archive.archiveDigest, with: key, sequence: sequence,
            created: SignatureBlock.milliseconds(created),
            expires: expires.map(SignatureBlock.milliseconds) ?? 0)
        let appendix = try replacing(block, in: existing, archiveLength: archive.archiveLength)
        try write(
            archiveAt: path, archiveLength: archive.archiveLength, archiveDigest: archive.archiveDigest,
            appendix: appendix)
        return block
    }

    /// The appendix `existing` with `block` added, or put in place of its key's block.
    ///
    /// - Throws: `badAppendix` when `existing` breaks §12.1 or the result would exceed 1 MiB.
    static func replacing(_ block: SignatureBlock, in existing: [UInt8], archiveLength: UInt64) throws -> [UInt8] {
        let blocks = existing.isEmpty ? [] : try ArchiveAppendix(parsing: existing, at: archiveLength).blocks
        let lengthField = archiveLength + UInt64(max(existing.count - ArchiveAppendix.footerSize, 0))
        var result: [(type: UInt32, bytes: [UInt8])] = []
        var placed = false
        for old in blocks {
            if old.type == ArchiveAppendix.signatureBlockType,
                try SignatureBlock(parsing: old.bytes, lengthFieldOffset: lengthField).keyID == block.keyID
            {
                if !placed { result.append((old.type, block.serialize())) }
                placed = true
            } else {
                result.append((old.type, old.bytes))
            }
        }
        if !placed { result.append((ArchiveAppendix.signatureBlockType, block.serialize())) }
        let encoded = ArchiveAppendix.encode(result)
        guard UInt64(encoded.count) <= FormatBounds.maxAppendixLength else {
            throw WebArcError.badAppendix(
                offset: lengthField, reason: "signing would make the appendix \(encoded.count) bytes, over 1 MiB")
        }
        return encoded
    }

    /// Writes `[0, archiveLength)` of the file at `path` followed by `appendix` to a temporary
    /// sibling, checks that the copy ends with the same trailer, and renames it over `path`.
    static func write(archiveAt path: String, archiveLength: UInt64, archiveDigest: [UInt8], appendix: [UInt8]) throws {
        let (source, _) = try FileByteSource.openRegularFile(path)
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0 else {
            throw WebArcError.io(path: path, operation: .opening("stat"), errno: errno)
        }
        let output = try OutputFile(targetPath: path, overwrite: true)
        do {
            try output.appendCopy(from: source, sourcePath: path, count: archiveLength)
            try output.append(appendix)
            try output.flush()
            let copied = try ArchiveReader(path: output.temporaryPath)
            guard copied.archiveDigest == archiveDigest, copied.archiveLength == archiveLength else {
                throw WebArcError.io(
                    path: path, operation: .transferring("copy (the archive changed while signing) from"), errno: EAGAIN
                )
            }
            try output.commit(overwrite: true, permissions: mode_t(info.st_mode) & 0o7777)
        } catch {
            output.discard()
            throw error
        }
    }
}
