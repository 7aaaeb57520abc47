import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Temporary files a killed process left beside its output are removed by the next output in that
/// folder; a live writer's are not.
@Suite struct StaleTemporariesTests {
    @Test(arguments: [
        (".site.webarc.tmp-123-host1-AbC123", StaleTemporaries.Writer.process(pid: 123, host: "host1")),
        (".site.webarc.tmp-77--zZ9zZ9", .process(pid: 77, host: "")),
        (".a.tmp-b.tmp-9-h-AbC123", .process(pid: 9, host: "h")),
        (".site.webarc.tmp-AbC123", .unknown),
    ])
    func namesOfOurTemporaries(name: String, writer: StaleTemporaries.Writer) {
        #expect(StaleTemporaries.writer(ofTemporaryNamed: name) == writer)
    }

    @Test(arguments: [
        "site.webarc.tmp-AbC123", ".tmp-AbC123", ".site.webarc.tmp-AbC12", ".site.webarc.tmp-12a-h-AbC123",
        ".site.webarc.tmp-1-h_h-AbC123", ".site.webarc.tmp-1-h-AbC123-x", ".site.webarc",
        ".site.webarc.tmp-1234567890-h-AbC123",
    ])
    func otherNamesAreNotOurs(name: String) {
        #expect(StaleTemporaries.writer(ofTemporaryNamed: name) == nil)
    }

    /// The PID of a process that has exited (and been reaped).
    static func deadPID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test("a sweep removes dead writers' and old files, keeps live writers', others' and fresh unknown ones")
    func sweep() throws {
        let folder = try TemporaryFolder()
        let host = StaleTemporaries.host
        let dead = try Self.deadPID()
        let names: [String: Bool] = [  // name: removed?
            ".a.webarc.tmp-\(dead)-\(host)-AbC123": true,  // this host, process gone
            ".b.webarc.tmp-\(getpid())-\(host)-AbC123": false,  // this process
            ".c.webarc.tmp-\(getppid())-\(host)-AbC123": false,  // a live process
            ".d.webarc.tmp-\(dead)-otherhost\(host.isEmpty ? "x" : "")-AbC123": false,  // another host, fresh
            ".e.webarc.tmp-AbC123": false,  // no PID, fresh
            "f.webarc": false,  // not a temporary
        ]
        let old: [String: Bool] = [
            ".g.webarc.tmp-AbC123": true,  // no PID, a day old
            ".h.webarc.tmp-\(dead)-otherhost\(host.isEmpty ? "x" : "")-AbC123": true,  // another host, a day old
            ".i.webarc.tmp-\(getppid())-\(host)-AbC123": true,  // a live PID (maybe reused), a day old
        ]
        for name in names.keys {
            #expect(FileManager.default.createFile(atPath: folder.file(name), contents: Data("x".utf8)))
        }
        let dayAgo = Date().addingTimeInterval(-Double(StaleTemporaries.maximumAge) - 60)
        for name in old.keys {
            #expect(FileManager.default.createFile(atPath: folder.file(name), contents: Data("x".utf8)))
            try FileManager.default.setAttributes([.modificationDate: dayAgo], ofItemAtPath: folder.file(name))
        }
        try FileManager.default.createDirectory(
            atPath: folder.file(".j.webarc.tmp-AbC123"), withIntermediateDirectories: false)
        try FileManager.default.setAttributes(
            [.modificationDate: dayAgo], ofItemAtPath: folder.file(".j.webarc.tmp-AbC123"))

        StaleTemporaries.sweep(directory: folder.path)

        let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        let expected = Set(names.merging(old) { $1 }.filter { !$0.value }.keys).union([".j.webarc.tmp-AbC123"])
        #expect(left == expected)
    }

    @Test(
        "an OutputFile sweeps its folder while it writes, done by its rename or discard, and names its temporary with its PID and host"
    )
    func outputFileSweeps() throws {
        let folder = try TemporaryFolder()
        for (target, ends) in [("new.webarc", "commit"), ("dropped.webarc", "discard")] {
            let stale = folder.file(".old-\(ends).webarc.tmp-\(try Self.deadPID())-\(StaleTemporaries.host)-AbC123")
            #expect(FileManager.default.createFile(atPath: stale, contents: Data("partial".utf8)))
            let file = try OutputFile(targetPath: folder.file(target), overwrite: false)
            #expect(
                StaleTemporaries.writer(ofTemporaryNamed: (file.temporaryPath as NSString).lastPathComponent)
                    == .process(pid: getpid(), host: StaleTemporaries.host))
            try file.append(Array("bytes".utf8))
            if ends == "commit" { try file.commit(overwrite: false) } else { file.discard() }
            #expect(!FileManager.default.fileExists(atPath: stale), "swept by the \(ends)")
            #expect(FileManager.default.fileExists(atPath: file.temporaryPath) == false)
        }
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["new.webarc"])
    }

    @Test("an intermediate file (pack --base's new archive, diff's check) is named so the sweep knows its writer")
    func intermediatePaths() {
        let path = OutputFile.intermediatePath(beside: "/tmp/out/site.webarc", purpose: "new")
        #expect(path.hasPrefix("/tmp/out/.site.webarc-new.tmp-"))
        let name = String(path.split(separator: "/").last!)
        #expect(StaleTemporaries.writer(ofTemporaryNamed: name) == .process(pid: getpid(), host: StaleTemporaries.host))
        #expect(
            OutputFile.intermediatePath(beside: "site.webarc", purpose: "check").hasPrefix("./.site.webarc-check.tmp-"))
    }
}
