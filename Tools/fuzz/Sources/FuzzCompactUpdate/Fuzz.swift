// A compact update (Spec/compact-update.md) over the vector delta-base.webarc: read and checked
// (CompactUpdate.check: header, bases, every section and count), and when that passes, applied to
// /dev/shm (the writer, then the target digest check). Every failure must be a WebArcError.
import Foundation
import WebArc

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let base = try! LayerStack([try! ArchiveReader(path: repository.path + "/Spec/vectors/valid/delta-base.webarc")])
let scratch = "/dev/shm/webarc-fuzz-compact-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompactUpdate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try CompactUpdate.check(bytes, bases: base)
    } catch is WebArcError {
        return 0
    } catch {
        fatalError("compact update check threw \(error)")
    }
    do {
        try Data(bytes).write(to: URL(fileURLWithPath: scratch + ".webarcu"))
        defer {
            try? FileManager.default.removeItem(atPath: scratch + ".webarcu")
            try? FileManager.default.removeItem(atPath: scratch + ".webarc")
        }
        try CompactApplier(update: scratch + ".webarcu", bases: base).write(to: scratch + ".webarc", overwrite: true)
    } catch is WebArcError {
    } catch {
        fatalError("compact update apply threw \(error)")
    }
    return 0
}
