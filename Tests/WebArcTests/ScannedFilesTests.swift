import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The scanner's compact list of files: each file made again from shared path bytes, its folder's
/// number and its numbers, as it was found.
@Suite("Scanned files")
struct ScannedFilesTests {
    @Test("files of several folders and a link to a file come back as scanned, in path byte order, read where they lie")
    func compactListKeepsEveryFile() throws {
        let scratch = try TemporaryFolder()
        let root = scratch.file("site")
        var expected: [String: [UInt8]] = [:]
        // Names around `/` (0x2F): `a.b` (0x2E) before `a/…`, `a0` (0x30) after; and non-ASCII.
        for (number, path) in ["a.b", "a/x.html", "a/é.html", "a0", "b/c/d.txt", "index.html", "z z/ü"].enumerated() {
            let file = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let bytes = Array(repeating: UInt8(65 + number), count: 10 + number)
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            expected[path] = bytes
        }
        // A link to a file inside: read at its target, listed under its own name.
        try FileManager.default.createSymbolicLink(atPath: root + "/b/link.txt", withDestinationPath: root + "/a0")
        expected["b/link.txt"] = expected["a0"]
        var scanner = FolderScanner(root: root, outsideLinks: .refuse)
        try scanner.scan()
        let files = scanner.files
        #expect(files.map(\.relativePath) == expected.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        for file in files {
            let read = FileManager.default.contents(atPath: file.readPath).map { Array($0) }
            #expect(read == expected[file.relativePath], "\(file.relativePath) read at \(file.readPath)")
            #expect(file.size == UInt64(expected[file.relativePath]?.count ?? -1))
        }
        #expect(files.first { $0.relativePath == "b/link.txt" }?.readPath.hasSuffix("/site/a0") == true)
        // The same files given in another order and sorted are equal, however their bytes lie.
        var again = ScannedFiles(files.reversed())
        #expect(again != files)
        again.sort()
        #expect(again == files)
        #expect(Array(again) == Array(files))
    }

    @Test("a file's size and time survive past 4 GiB and before 1970")
    func numbersKept() {
        let file = ScannedFile(relativePath: "big.bin", readPath: "/data/big.bin", size: 5 << 32, modified: -86_400)
        let files = ScannedFiles([file])
        #expect(files.count == 1 && files[0] == file)
    }
}
