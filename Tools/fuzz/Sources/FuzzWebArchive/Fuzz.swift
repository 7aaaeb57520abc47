// Safari .webarchive import (binary or XML property list) of arbitrary bytes.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ImportExercise.run(Array(UnsafeBufferPointer(start: data, count: size)), name: "input.webarchive")
    return 0
}
