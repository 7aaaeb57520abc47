// WACZ import of arbitrary bytes: the ZIP reader (end records, ZIP64, central directory, local
// headers, inflate), datapackage.json, datapackage-digest.json and pages.jsonl, then the WARCs.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWACZ(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ImportExercise.run(Array(UnsafeBufferPointer(start: data, count: size)), name: "input.wacz")
    return 0
}
