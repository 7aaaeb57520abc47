import Foundation
import Synchronization
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

    @Test(
        "a list collected past a run is parked in scratch files and reads back as the held one, in any order, from several threads"
    )
    func parkedListReadsBackAsHeld() throws {
        var random = SeededGenerator(seed: 65)
        // Several blocks of files (1 024 a block), names around `/` and non-ASCII, links to files.
        var files: [ScannedFile] = []
        for folder in 0..<7 {
            for number in 0..<500 {
                let name = ["p\(number).html", "p\(number)/x", "p\(number)-é", "a.b\(number)"][number % 4]
                let path = "d\(folder)/\(name)"
                let size = UInt64.random(in: 0...(1 << 40), using: &random)
                let modified = Int64.random(in: -86_400...2_000_000_000, using: &random)
                files.append(
                    number % 97 == 5
                        ? ScannedFile(
                            relativePath: path, readPath: "/elsewhere/\(path)", size: size, modified: modified)
                        : ScannedFile(
                            relativePath: path, folder: "/srv/site/d\(folder)", size: size, modified: modified))
            }
        }
        files.shuffle(using: &random)
        func collect(runBytes: Int) throws -> ScannedFiles {
            let collector = ScannedFiles.Collector(runBytes: runBytes)
            for file in files { try collector.append(file) }
            return try collector.finish()
        }
        let held = try collect(runBytes: 64 << 20)
        let parked = try collect(runBytes: 8 << 10)
        var sorted = ScannedFiles(files)
        sorted.sort()
        #expect(held == sorted)
        #expect(parked.count == files.count)
        #expect(parked == held)
        #expect(parked.map(\.readPath) == held.map(\.readPath))
        #expect(parked.indices.allSatisfy { parked.size(at: $0) == held.size(at: $0) })
        // Read far apart from several threads at once: more blocks than the cache keeps, each read again.
        let positions = (0..<20_000).map { _ in Int.random(in: 0..<files.count, using: &random) }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            var wrong = 0
            for position in positions[(part * 5_000)..<((part + 1) * 5_000)] where parked[position] != held[position] {
                wrong += 1
            }
            mismatches.withLock { $0 += wrong }
        }
        #expect(mismatches.withLock { $0 } == 0)
        #expect(parked.readFailure == nil)
    }

    @Test("a scan whose list is parked finds the files a held one does, and a pack of it is the same archive")
    func parkedScanPacksTheSameArchive() throws {
        let scratch = try TemporaryFolder()
        let root = scratch.file("site")
        for folder in ["", "a/", "a/b/", "c d/"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
            for number in 0..<40 {
                let text =
                    "<title>\(folder)\(number)</title><p>page \(number) of \(folder) "
                    + String(repeating: "words ", count: number)
                try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + folder + "p\(number).html"))
            }
            try Data("<p>index of \(folder)".utf8).write(to: URL(fileURLWithPath: root + "/" + folder + "index.html"))
        }
        try FileManager.default.createSymbolicLink(
            atPath: root + "/a/link.html", withDestinationPath: root + "/c d/p3.html")
        var held = FolderScanner(root: root, outsideLinks: .refuse)
        try held.scan()
        var parked = FolderScanner(root: root, outsideLinks: .refuse)
        parked.runBytes = 1
        try parked.scan()
        #expect(held.files.count == 4 * 41 + 1)
        #expect(parked.files == held.files)
        #expect(parked.files.map(\.readPath) == held.files.map(\.readPath))
        func pack(scanRunBytes: Int) throws -> Data {
            var options = SitePacker.Options()
            options.scanRunBytes = scanRunBytes
            let path = scratch.file("\(scanRunBytes).webarc")
            _ = try SitePacker(options: options).pack(folder: root, to: path)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        #expect(try pack(scanRunBytes: 1) == pack(scanRunBytes: 8 << 20))
    }

    @Test("a site of a folder per page keeps no folder string, but one for a folder reached through a link")
    func folderPerPageKeepsNoFolderStrings() throws {
        let scratch = try TemporaryFolder()
        let root = scratch.file("site")
        var expected: [String: String] = [:]
        for number in 0..<300 {
            let folder = "posts/\(number % 3)/slug-\(number)"
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
            try Data("<p>page \(number)".utf8).write(to: URL(fileURLWithPath: root + "/" + folder + "/index.html"))
            expected[folder + "/index.html"] = "<p>page \(number)"
        }
        try Data("<p>home".utf8).write(to: URL(fileURLWithPath: root + "/index.html"))
        expected["index.html"] = "<p>home"
        // A link to a folder inside: its files are read in the folder it names.
        try FileManager.default.createSymbolicLink(
            atPath: root + "/latest", withDestinationPath: root + "/posts/1/slug-7")
        expected["latest/index.html"] = "<p>page 7"
        for runBytes in [8 << 20, 1] {
            var scanner = FolderScanner(root: root, outsideLinks: .refuse)
            scanner.runBytes = runBytes
            try scanner.scan()
            #expect(scanner.files.count == expected.count)
            #expect(scanner.files.heldFolderCount == 1, "only the linked folder's string is kept")
            for file in scanner.files {
                let read = FileManager.default.contents(atPath: file.readPath).map {
                    String(decoding: $0, as: UTF8.self)
                }
                #expect(read == expected[file.relativePath], "\(file.relativePath) read at \(file.readPath)")
            }
            #expect(
                scanner.files.first { $0.relativePath == "latest/index.html" }?.readPath.hasSuffix(
                    "/posts/1/slug-7/index.html") == true)
        }
    }

    @Test("a file's size and time survive past 4 GiB and before 1970")
    func numbersKept() {
        let file = ScannedFile(relativePath: "big.bin", readPath: "/data/big.bin", size: 5 << 32, modified: -86_400)
        let files = ScannedFiles([file])
        #expect(files.count == 1 && files[0] == file)
    }
}
