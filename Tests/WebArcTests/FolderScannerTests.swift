import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The scanner lists the folders of one depth in parallel: what it finds must not depend on that.
@Suite("Folder scanner")
struct FolderScannerTests {
    /// Names whose bytes sort around `/` (0x2F): `a.b` (0x2E) before `a/…`, `a0` (0x30) after.
    static let names = ["a", "a.b", "a-b", "a0", "B", "b", "é", "z z"]

    /// A tree of `depth` levels, each folder holding a file of every name and `width` folders.
    static func makeTree(at root: String, depth: Int, width: Int) throws -> [String] {
        var files: [String] = []
        func fill(_ relative: String, level: Int) throws {
            let folder = relative.isEmpty ? root : root + "/" + relative
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for name in names {
                let path = relative.isEmpty ? name : relative + "/" + name
                try Data(path.utf8).write(to: URL(fileURLWithPath: root + "/" + path))
                files.append(path)
            }
            guard level < depth else { return }
            for index in 0..<width {
                // "a" as a folder name too: its files ("a/…") sort after the file "a.b" by bytes.
                try fill(
                    relative.isEmpty ? "d\(index)" : relative + "/" + (index == 0 ? "a.d" : "d\(index)"),
                    level: level + 1)
            }
        }
        try fill("", level: 0)
        return files
    }

    @Test(
        "files of a tree 4 deep and 3 wide come out as a serial walk finds them, sorted by path bytes; links inside followed"
    )
    func parallelWalkFindsEveryFile() throws {
        let folder = try TemporaryFolder()
        let root = folder.file("site")
        var expected = try Self.makeTree(at: root, depth: 3, width: 3)
        // A link to a folder inside is followed: its files appear under the link's name.
        try FileManager.default.createSymbolicLink(atPath: root + "/d1/mirror", withDestinationPath: root + "/d2/d1")
        for path in expected where path.hasPrefix("d2/d1/") {
            expected.append("d1/mirror/" + path.dropFirst("d2/d1/".count))
        }
        var scanner = FolderScanner(root: root, outsideLinks: .refuse)
        try scanner.scan()
        #expect(scanner.problems.isEmpty, "\(scanner.problems)")
        let found = scanner.files.map(\.relativePath)
        #expect(found == expected.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(found.count == (40 + 4) * Self.names.count)  // 40 folders, and the 4 seen again through the link
        // Every file is read from where it lies, with its size.
        for file in scanner.files.prefix(50) {
            #expect(file.size == UInt64(FileManager.default.contents(atPath: file.readPath)?.count ?? -1))
        }
    }

    @Test("problems at several depths are all listed, sorted by path, the same on every scan")
    func problemsAtEveryDepth() throws {
        let folder = try TemporaryFolder()
        let root = folder.file("site")
        _ = try Self.makeTree(at: root, depth: 2, width: 2)
        #expect(mkfifo(root + "/d1/d1/pipe", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/d0/up", withDestinationPath: root)
        try FileManager.default.createSymbolicLink(
            atPath: root + "/dangling", withDestinationPath: folder.file("nowhere"))
        try FileManager.default.createSymbolicLink(atPath: root + "/d1/out", withDestinationPath: folder.path)
        var first = FolderScanner(root: root, outsideLinks: .refuse)
        try first.scan()
        #expect(first.problems.map(\.path) == ["d0/up", "d1/d1/pipe", "d1/out", "dangling"])
        #expect(first.problems.map(\.kind) == [.loop, .special, .linkOutside, .unreadable])
        var second = FolderScanner(root: root, outsideLinks: .skip)
        try second.scan()
        #expect(second.files == first.files)
        #expect(second.skippedLinks.map(\.path) == ["d1/out"])
        #expect(second.problems.map(\.path) == ["d0/up", "d1/d1/pipe", "dangling"])
    }
}
