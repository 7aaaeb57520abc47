// URL canonicalization (spec §9) on arbitrary strings, valid UTF-8 or not, and its idempotence:
// canonicalize(canonicalize(x)) == canonicalize(x) whenever the first succeeds. An input whose
// first line is short is also tried as a method with the rest as the URL.
import Foundation
import WebArc

/// `WEBARC_FUZZ_IDEMPOTENCE=report` prints idempotence failures instead of stopping on them.
nonisolated(unsafe) let reportOnly = ProcessInfo.processInfo.environment["WEBARC_FUZZ_IDEMPOTENCE"] == "report"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLKey(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? URLKey.key(method: "GET", url: text)
    if let newline = bytes.firstIndex(of: 0x0A), newline <= 16 {
        _ = try? URLKey.key(
            method: String(decoding: bytes[..<newline], as: UTF8.self),
            url: String(decoding: bytes[(newline + 1)...], as: UTF8.self))
    }
    guard let once = try? URLKey.canonicalize(text) else { return 0 }
    let twice: String
    do {
        twice = try URLKey.canonicalize(once)
    } catch {
        fail("canonicalize(\(debug(text))) = \(debug(once)), which does not canonicalize: \(error)")
        return 0
    }
    if twice != once { fail("canonicalize(\(debug(text))) = \(debug(once)), canonicalized again \(debug(twice))") }
    return 0
}

func debug(_ text: String) -> String { String(reflecting: text) }

func fail(_ message: String) {
    if reportOnly {
        FileHandle.standardError.write(Data("idempotence: \(message)\n".utf8))
    } else {
        fatalError("idempotence: \(message)")
    }
}
