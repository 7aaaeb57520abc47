// HAR import of arbitrary bytes into an archive in memory-backed storage.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAR(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ImportExercise.run(Array(UnsafeBufferPointer(start: data, count: size)), name: "input.har")
    return 0
}
