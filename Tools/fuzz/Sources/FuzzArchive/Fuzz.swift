// A whole archive file: open, list, look up, stream every body, verify (see ArchiveExercise).
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ArchiveExercise.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
