import Foundation
import Synchronization

extension CompactPlan {
    /// The bodies section's dictionary (compact update §5): each previous version's length as
    /// LEB128, then its verified bytes, in order (nil: none, an empty one).
    ///
    /// Sized first from the body entries, so that nothing is allocated for a hostile total over
    /// ``CompactUpdate/maxSection``; then the versions are read and checked on every core, each into
    /// its own place in the buffer. The first version that fails in order is the one named, as a
    /// read one after the other would name it.
    ///
    /// - Throws: `badCompact` at `frame` for a dictionary over the section bound; a damaged base's
    ///   error (``CompactBaseView/body(_:into:)``).
    static func previousVersions(
        _ versions: [CompactBaseView.Record?], in base: CompactBaseView, frame: UInt64
    ) throws -> [UInt8] {
        var lengths: [Int] = []
        var total = 0
        for version in versions {
            let length = try version.map(base.bodyLength) ?? 0
            lengths.append(length)
            total += LEB128.encodedLength(UInt64(length)) + length
            guard total <= CompactUpdate.maxSection else {
                throw WebArcError.badCompact(
                    offset: frame, section: "bodies section", position: nil,
                    reason: "its dictionary is over \(CompactUpdate.maxSection) bytes")
            }
        }
        var starts: [Int] = []
        var header: [UInt8] = []
        var failure: (any Error)?
        let prefix = [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            var at = 0
            for length in lengths {
                header.removeAll(keepingCapacity: true)
                LEB128.append(UInt64(length), to: &header)
                for byte in header {
                    buffer[at] = byte
                    at += 1
                }
                starts.append(at)
                at += length
            }
            let (starts, lengths) = (starts, lengths)
            let slots = SendableBuffer(base: UnsafeMutableRawBufferPointer(buffer))
            let errors = Mutex<[Int: any Error]>([:])
            let parts = CoreRuns.ofAboutEqualBytes(lengths, runs: AvailableCores.count)
            DispatchQueue.concurrentPerform(iterations: parts.count) { part in
                for number in parts[part] {
                    guard let version = versions[number] else { continue }
                    let slot = UnsafeMutableRawBufferPointer(
                        rebasing: slots.base[starts[number]..<(starts[number] + lengths[number])])
                    do {
                        try base.body(version, into: slot)
                    } catch {
                        errors.withLock { $0[number] = error }
                        return
                    }
                }
            }
            failure = errors.withLock { found in found.keys.min().map { found[$0]! } }
            count = failure == nil ? total : 0
        }
        if let failure { throw failure }
        return prefix
    }

    /// A buffer that concurrent workers fill, each its own part.
    private struct SendableBuffer: @unchecked Sendable {
        let base: UnsafeMutableRawBufferPointer
    }
}
