import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Grouped bodies (spec §6.3 slices, Appendix C step 16): written, read whole and by range, verified,
/// diffed and applied.
@Suite("Grouped bodies")
struct GroupedBodiesTests {
    /// Pages of 1 to 20 KiB of seeded text, a 100 KiB one (not grouped), an empty one and a copy.
    static func pages() -> [(path: String, bytes: [UInt8])] {
        var generator = SeededGenerator(seed: 46)
        var pages: [(String, [UInt8])] = (0..<40).map { number in
            ("p\(number).html", generator.text(1_024 + Int(generator.next() % 20_000)))
        }
        pages.append(("large.html", generator.text(100_000)))
        pages.append(("empty.txt", []))
        pages.append(("copy.html", pages[3].1))
        return pages
    }

    /// Writes `pages` (path, bytes) with a group limit and, optionally, a Zstandard level.
    static func write(
        _ pages: [(path: String, bytes: [UInt8])], to path: String, groups: Int? = 65_536, zstd: Int? = nil
    ) throws {
        var options = ArchiveWriter.Options(zstdLevel: zstd)
        options.groups = groups
        let writer = try ArchiveWriter(path: path, options: options)
        for page in pages {
            let body = try writer.addBody(page.bytes)
            try writer.add(ResponseRecord(request: RequestRecord(url: "https://example.com/" + page.path), body: body))
        }
        try writer.finish()
    }

    @Test("small bodies become slices of shared groups, read back whole and by range, and verify clean")
    func writeReadVerify() throws {
        let scratch = try TemporaryFolder()
        let pages = Self.pages()
        for zstd in [nil, 3] {
            let path = scratch.file("grouped-\(zstd ?? 0).webarc")
            try Self.write(pages, to: path, zstd: zstd)
            let reader = try ArchiveReader(path: path)
            #expect(reader.trailer.requiredFeatures.contains(.groupedBodies))
            #expect(reader.trailer.minorVersion == 4)
            var slices = 0
            var groups: Set<UInt64> = []
            try reader.forEachBody { entry in
                guard entry.isSlice else {
                    #expect(entry.length == 0 || entry.length > 65_536)
                    return
                }
                slices += 1
                groups.insert(entry.chunks[0].offset)
                if zstd != nil { #expect(entry.chunks[0].codec == .zstd) }
            }
            #expect(slices == 40)
            #expect(groups.count > 2 && groups.count < 40)
            for page in pages {
                let entry = try #require(try reader.lookup(method: "GET", url: "https://example.com/" + page.path))
                guard case .response(let response) = entry.record else {
                    Issue.record("not a response")
                    continue
                }
                #expect(Array(try reader.body(response.body)) == page.bytes, "\(page.path)")
                if page.bytes.count > 100 {
                    let range = UInt64(10)..<UInt64(page.bytes.count - 7)
                    #expect(
                        Array(try reader.body(response.body, range: range))
                            == Array(page.bytes[10..<page.bytes.count - 7]))
                }
            }
            let report = ArchiveVerifier.verify(path: path)
            #expect(report.problems.isEmpty, "\(report.problems)")
        }
    }

    @Test("decoded groups stay within the reader's group share, and reads stay right when none fits")
    func groupCacheStaysWithinItsShare() throws {
        let scratch = try TemporaryFolder()
        let pages = Self.pages()
        let path = scratch.file("grouped.webarc")
        try Self.write(pages, to: path)
        let reader = try ArchiveReader(path: path)
        // 150 KiB holds two groups of the 65 536-byte limit; 0 holds none.
        for share in [150 << 10, 0] {
            var limits = ReaderCacheLimits.standard
            limits.groups = share
            reader.limitCaches(limits)
            #expect(reader.cacheLimits.groups == share)
            for page in pages.reversed() {
                let entry = try #require(try reader.lookup(method: "GET", url: "https://example.com/" + page.path))
                guard case .response(let response) = entry.record else { continue }
                #expect(Array(try reader.body(response.body)) == page.bytes, "\(page.path)")
                #expect(reader.cacheUsage.groups <= share)
            }
            #expect((reader.cacheUsage.groupCount > 0) == (share > 0))
        }
    }

    @Test("grouping makes a site of small pages smaller than coding each page alone")
    func smaller() throws {
        let scratch = try TemporaryFolder()
        let pages = Array(Self.pages().prefix(40))
        try Self.write(pages, to: scratch.file("alone.webarc"), groups: nil)
        try Self.write(pages, to: scratch.file("grouped.webarc"), groups: 262_144)
        func size(_ name: String) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: scratch.file(name))[.size] as! Int
        }
        #expect(try size("grouped.webarc") < size("alone.webarc"))
    }

    @Test("a diff against a grouped base applies back to the grouped release byte for byte")
    func diffAndApply() throws {
        let scratch = try TemporaryFolder()
        var pages = Self.pages()
        try Self.write(pages, to: scratch.file("v1.webarc"))
        pages[5].bytes += Array("<p>changed in release 2</p>".utf8)
        pages.remove(at: 9)
        pages.append(("new.html", Array(repeating: UInt8(ascii: "n"), count: 3_000)))
        // A body the base holds as a slice, under a new URL: the update names the base's group.
        pages.append(("moved.html", pages[1].bytes))
        try Self.write(pages, to: scratch.file("v2.webarc"))
        let old = try LayerStack([try ArchiveReader(path: scratch.file("v1.webarc"))])
        try UpdateBuilder(old: old, new: try ArchiveReader(path: scratch.file("v2.webarc")))
            .write(to: scratch.file("u.webarc"))
        let update = try ArchiveReader(path: scratch.file("u.webarc"))
        // An update does not group (its bodies are coded against their previous versions or alone).
        var baseSlices = 0
        try update.forEachBody { entry in
            #expect(!entry.isSlice || entry.chunks[0].layer == 1)
            if entry.isSlice { baseSlices += 1 }
        }
        #expect(baseSlices == 1)
        #expect(update.trailer.minorVersion == 4)
        let stack = try LayerStack([update, try ArchiveReader(path: scratch.file("v1.webarc"))])
        let moved = try #require(try stack.top.lookup(method: "GET", url: "https://example.com/moved.html"))
        guard case .response(let response) = moved.record else { throw WebArcError.writerClosed }
        let same = Array(try stack.top.body(response.body)) == pages[1].bytes
        #expect(same, "moved.html read through the update over its base")
        try UpdateApplier(stack: stack).write(to: scratch.file("applied.webarc"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: scratch.file("applied.webarc")))
                == Data(contentsOf: URL(fileURLWithPath: scratch.file("v2.webarc"))))
    }
}
