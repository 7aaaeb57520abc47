// WARC import (plain or gzip) of arbitrary bytes into an archive in memory-backed storage.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWARC(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ImportExercise.run(Array(UnsafeBufferPointer(start: data, count: size)), name: "input.warc")
    return 0
}
