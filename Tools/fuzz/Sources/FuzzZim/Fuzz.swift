import Foundation
// webarc's own parsers of ZIM input, without libzim (which runs in the webarc-zim child process:
// a crash in it, which no catch stops, would end this target). A ZIM file (it starts with the ZIM
// magic number): the header parsed and validated, every cluster's first blob offset checked, then
// up to 64 uncompressed or Zstandard clusters decoded, and each blob read as a warc2zim `H/` entry
// and as an HTML page. Any other input: a warc2zim `H/` entry, and an HTML page.
import FuzzSupport
import WebArc
@_spi(Fuzzing) import WebArcZim

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZim(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.starts(with: [0x5A, 0x49, 0x4D, 0x04]) else {
        exerciseBlob(bytes[...])
        return 0
    }
    let input = "\(ScratchDirectory.path)/input.zim"
    guard FileManager.default.createFile(atPath: input, contents: Data(bytes)) else {
        fatalError("cannot write \(input)")
    }
    defer { unlink(input) }
    if let header = try? ZimHeader(parsing: Array(bytes.prefix(ZimHeader.size)), file: input) {
        _ = try? header.validate(fileSize: UInt64(size), file: input)
    }
    do {
        try ZimOwnParsers.readClusters(path: input, limit: 1 << 20, maxClusters: 64) { exerciseBlob($0) }
    } catch is ZimError {
        return 0
    } catch {
        fatalError("reading a ZIM's clusters threw something other than a ZimError: \(error)")
    }
    return 0
}

/// A blob as warc2zim's `H/` entry and as an HTML page, with what the import relies on checked.
func exerciseBlob(_ blob: ArraySlice<UInt8>) {
    let bytes = Array(blob)
    if let head = ZimOwnParsers.warc2zimHead(bytes, payloadLength: UInt64(bytes.count)) {
        precondition(!head.url.isEmpty, "a warc2zim head without a URL parsed")
        let names = head.storedHeaders.map { $0.name.lowercased() }
        precondition(
            !names.contains("transfer-encoding") && !names.contains("content-encoding"),
            "stored headers keep a coding: \(names)")
        precondition(
            head.storedHeaders.filter { $0.name.lowercased() == "content-length" }.allSatisfy {
                $0.value == String(bytes.count)
            }, "a stored Content-Length is not the payload's length")
        precondition(
            !head.redirectHeaders.contains { $0.name.lowercased() == "content-length" },
            "a redirect keeps its body's length")
        if let status = head.status, head.redirectTarget != nil {
            precondition((300..<400).contains(status), "a redirect of status \(status)")
        }
        precondition(head.url.hasSuffix(head.sharedPath), "\(head.sharedPath) is not the end of \(head.url)")
    }
    if let page = ZimOwnParsers.removingWarc2zimInserts(bytes) {
        precondition(page.count < bytes.count, "removing warc2zim's inserts did not make the page shorter")
    }
}
