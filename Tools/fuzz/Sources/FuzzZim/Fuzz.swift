import Foundation
// ZIM import of arbitrary bytes: the header check (our parser), then libzim through the shim
// (which must turn every failure into an error, never a crash), into an archive that must verify.
import FuzzSupport
import WebArc
import WebArcZim

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZim(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let directory = ScratchDirectory.path
    let input = "\(directory)/input.zim"
    let output = "\(directory)/out.webarc"
    guard FileManager.default.createFile(atPath: input, contents: Data(bytes)) else {
        fatalError("cannot write \(input)")
    }
    defer {
        unlink(input)
        unlink(output)
    }
    if let header = try? ZimHeader(parsing: Array(bytes.prefix(ZimHeader.size)), file: input) {
        _ = try? header.validate(fileSize: UInt64(size), file: input)
    }
    // The last byte picks skipping bad entries; entries stay small, as a fuzzer's inputs are.
    var options = ZimImportOptions(overwrite: true)
    options.skipBad = (bytes.last ?? 0) & 1 == 1
    options.maxEntrySize = 1 << 20
    do {
        _ = try ZimImporter(options: options).run(input: input, output: output)
    } catch is ZimError {
        return 0
    } catch {
        fatalError("ZIM import threw something other than a ZimError: \(error)")
    }
    let report = ArchiveVerifier.verify(path: output)
    if !report.passed { fatalError("ZIM import wrote an archive that does not verify: \(report.problems.prefix(3))") }
    return 0
}

// libzim (C++, not instrumented) sizes some buffers from the file: an absurd size is a
// std::bad_alloc, which the shim reports as an error. AddressSanitizer would abort on it instead
// of returning null as glibc does, so it is told to behave as glibc does.
// A static string: the sanitizer asks before the Swift runtime is set up.
@_cdecl("__asan_default_options")
public func asanDefaultOptions() -> UnsafePointer<CChar> {
    UnsafeRawPointer(("allocator_may_return_null=1" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
}
