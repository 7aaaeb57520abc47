// The decoded contents of pages, wrapped into an archive whose digests, page references and
// trailer are recomputed (see PageArchive), then read as FuzzArchive reads a file.
// `WEBARC_FUZZ_WRAPPED=FILE` also writes the wrapped archive of the last input to FILE (run it on
// one input to inspect it with `webarc verify`).
import Foundation
import FuzzSupport

nonisolated(unsafe) let wrappedPath = ProcessInfo.processInfo.environment["WEBARC_FUZZ_WRAPPED"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchivePages(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let archive = PageArchive.wrap(Array(UnsafeBufferPointer(start: data, count: size)))
    if let wrappedPath { FileManager.default.createFile(atPath: wrappedPath, contents: Data(archive)) }
    ArchiveExercise.run(archive)
    return 0
}
