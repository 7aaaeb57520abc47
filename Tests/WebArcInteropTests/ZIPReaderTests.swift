import Foundation
import Testing
import WebArcTestSupport

@testable import WebArcInterop

/// The ZIP reader on good ZIPs and hostile ones: each broken structure gives `bad-zip` with a
/// message naming what is wrong, never a crash, a huge allocation or a read past the file.
@Suite("ZIP reader")
struct ZIPReaderTests {
    static let text = Array(String(repeating: "zip reader ", count: 200).utf8)

    static func open(_ bytes: [UInt8], in folder: TemporaryFolder) throws -> ZIPReader {
        try ZIPReader(file: try InputFile(path: try folder.write("t.zip", bytes)))
    }

    /// The `bad-zip` reason opening `bytes` gives, or nil when it opens.
    static func reason(_ bytes: [UInt8]) throws -> String? {
        let folder = try TemporaryFolder()
        do {
            _ = try open(bytes, in: folder)
            return nil
        } catch InteropError.badZIP(let file, let reason) {
            #expect(file == folder.file("t.zip"))
            return reason
        }
    }

    @Test("stored and deflated entries read back; a stored one is a window on the file")
    func reads() throws {
        let folder = try TemporaryFolder()
        let layout = ZIPFixture.zip([
            .init(name: "a/stored.txt", bytes: Self.text), .init(name: "b.json", bytes: Self.text, deflated: true),
            .init(name: "empty", bytes: []),
        ])
        let zip = try Self.open(layout.bytes, in: folder)
        #expect(zip.entries.map(\.name) == ["a/stored.txt", "b.json", "empty"])
        #expect(try zip.contents(of: try #require(zip.entry("b.json")), limit: 1 << 20) == Self.text)
        #expect(try zip.contents(of: try #require(zip.entry("empty")), limit: 0) == [])
        let window = try zip.window(of: try #require(zip.entry("a/stored.txt")))
        #expect(window.path == folder.file("t.zip") + "!/a/stored.txt")
        #expect(window.size == UInt64(Self.text.count))
        #expect(try window.read(at: 5, count: 6) == Array(Self.text[5..<11]))
        #expect(
            try window.read(at: UInt64(Self.text.count) - 2, count: 10).count == 2, "reads stop at the member's end")
        #expect(
            throws: InteropError.badZIP(
                file: folder.file("t.zip"), reason: "entry \"b.json\" is compressed and cannot be read in place")
        ) {
            try zip.window(of: try #require(zip.entry("b.json")))
        }
    }

    @Test("a file that is not a ZIP, or lost its end, is refused", arguments: [0, 1, 22, 100])
    func truncated(_ cut: Int) throws {
        var bytes = ZIPFixture.zip([.init(name: "a", bytes: Self.text)]).bytes
        bytes.removeLast(cut == 0 ? bytes.count - 4 : cut)
        let reason = try #require(try Self.reason(bytes))
        #expect(reason.contains("no end of central directory record") || reason.contains("too short"), "\(reason)")
    }

    @Test("an entry count past what the directory holds is refused before anything is allocated")
    func countLie() throws {
        var layout = ZIPFixture.zip([.init(name: "a", bytes: Self.text)])
        ZIPFixture.patch(&layout.bytes, at: layout.endOffset + 8, 0xFFFF, width: 2)
        ZIPFixture.patch(&layout.bytes, at: layout.endOffset + 10, 0xFFFF, width: 2)
        #expect(
            try Self.reason(layout.bytes)
                == "it declares 65535 entries, more than its 47-byte central directory can hold")
    }

    @Test("a directory offset or size past the file is refused")
    func directoryPastEnd() throws {
        var layout = ZIPFixture.zip([.init(name: "a", bytes: Self.text)])
        ZIPFixture.patch(&layout.bytes, at: layout.endOffset + 16, 0xFFFF_FF00, width: 4)
        #expect(
            try Self.reason(layout.bytes)?.hasPrefix(
                "the central directory (47 bytes at offset 4294967040) does not end before") == true)
    }

    @Test("a ZIP64 locator that points outside the file is refused")
    func zip64Lie() throws {
        let layout = ZIPFixture.zip([.init(name: "a", bytes: Self.text)])
        var locator = ZIPFieldWriter()
        locator.uint32(0x0706_4B50)
        locator.uint32(0)
        locator.uint64(1 << 60)
        locator.uint32(1)
        let bytes = Array(layout.bytes[..<layout.endOffset]) + locator.bytes + Array(layout.bytes[layout.endOffset...])
        #expect(
            try Self.reason(bytes)
                == "the ZIP64 locator points at offset 1152921504606846976, past where a ZIP64 end record can be")
    }

    @Test(
        "names that climb out or are absolute are refused, naming the entry",
        arguments: [
            ("../evil.warc", "climbs out"), ("archive/../../x", "climbs out"), ("/etc/passwd", "absolute path"),
            ("C:\\x", "absolute path"),
            ("a\\..\\b", "climbs out"),
            // U+0600 is a Prepend scalar: as Characters, it and the `/` after it are one.
            ("a\u{0600}/../../x", "climbs out"),
        ])
    func hostileNames(_ name: String, _ problem: String) throws {
        let reason = try #require(try Self.reason(ZIPFixture.zip([.init(name: name, bytes: Self.text)]).bytes))
        #expect(reason.contains(problem) && reason.contains(name), "\(reason)")
    }

    @Test("two entries of one name are refused")
    func duplicates() throws {
        let bytes = ZIPFixture.zip([.init(name: "a", bytes: [1]), .init(name: "a", bytes: [2])]).bytes
        #expect(try Self.reason(bytes) == "two entries are named \"a\"")
    }

    @Test("entries whose data overlap are refused")
    func overlap() throws {
        var layout = ZIPFixture.zip([
            .init(name: "a", bytes: Self.text, deflated: true), .init(name: "b", bytes: Self.text),
        ])
        // Entry a's compressed size now reaches into b's local header.
        let size = UInt64(layout.localOffsets[1] - layout.localOffsets[0])
        ZIPFixture.patch(&layout.bytes, at: layout.directoryOffset + 20, size, width: 4)
        #expect(try Self.reason(layout.bytes) == "entries \"a\" and \"b\" overlap")
    }

    @Test("data declared past the central directory is refused")
    func dataPastDirectory() throws {
        var layout = ZIPFixture.zip([.init(name: "a", bytes: Self.text, deflated: true)])
        ZIPFixture.patch(&layout.bytes, at: layout.directoryOffset + 20, 0xFFFF_0000, width: 4)
        #expect(
            try Self.reason(layout.bytes)?.hasPrefix(
                "entry \"a\" declares 4294901760 bytes at offset 31, past the central directory") == true)
    }

    @Test("a local header naming another file is refused")
    func localNameMismatch() throws {
        var layout = ZIPFixture.zip([.init(name: "a", bytes: Self.text)])
        layout.bytes[layout.localOffsets[0] + 30] = UInt8(ascii: "b")
        #expect(try Self.reason(layout.bytes) == "entry \"a\"'s local header names another file")
    }

    @Test("a zip bomb stops at its declared size; an absurd size is refused before reading")
    func bombs() throws {
        let folder = try TemporaryFolder()
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        var layout = ZIPFixture.zip([.init(name: "bomb", bytes: zeros, deflated: true)])
        ZIPFixture.patch(&layout.bytes, at: layout.directoryOffset + 24, 1000, width: 4)
        let zip = try Self.open(layout.bytes, in: folder)
        let entry = try #require(zip.entry("bomb"))
        #expect(
            throws: InteropError.badZIP(
                file: folder.file("t.zip"), reason: "entry \"bomb\" inflates past its declared 1000 bytes")
        ) {
            try zip.contents(of: entry, limit: 1 << 20)
        }
        // Declared sizes deflate cannot reach are refused before anything is inflated, whatever the limit.
        var lying = ZIPFixture.zip([.init(name: "lie", bytes: Self.text, deflated: true)])
        ZIPFixture.patch(&lying.bytes, at: lying.directoryOffset + 24, 0xFFFF_FFF0, width: 4)
        let liar = try Self.open(lying.bytes, in: folder)
        let compressed = try #require(liar.entry("lie")).compressedSize
        #expect(
            throws: InteropError.badZIP(
                file: folder.file("t.zip"),
                reason: "entry \"lie\" declares 4294967280 bytes from \(compressed) deflated, more than webarc inflates"
            )
        ) {
            try liar.forEachPiece(of: try #require(liar.entry("lie")), checkingCRC: false) { _ in }
        }
        var absurd = ZIPFixture.zip([.init(name: "big", bytes: zeros, deflated: true)])
        ZIPFixture.patch(&absurd.bytes, at: absurd.directoryOffset + 24, 0xFFFF_FFF0, width: 4)
        let big = try Self.open(absurd.bytes, in: folder)
        #expect(
            throws: InteropError.badZIP(
                file: folder.file("t.zip"),
                reason: "entry \"big\" is 4294967280 bytes, more than the 1048576 read into memory")
        ) {
            try big.contents(of: try #require(big.entry("big")), limit: 1 << 20)
        }
    }

    @Test("a damaged deflated entry fails its CRC-32 or its inflate")
    func damaged() throws {
        let folder = try TemporaryFolder()
        var layout = ZIPFixture.zip([.init(name: "a", bytes: Self.text, deflated: true)])
        ZIPFixture.patch(&layout.bytes, at: layout.directoryOffset + 16, 0x1234_5678, width: 4)
        let zip = try Self.open(layout.bytes, in: folder)
        #expect(
            throws: InteropError.badZIP(
                file: folder.file("t.zip"),
                reason:
                    "entry \"a\" has CRC-32 0x\(String(ZIPFixture.crc(Self.text), radix: 16)), not the 0x12345678 its directory entry declares: it is damaged"
            )
        ) {
            try zip.contents(of: try #require(zip.entry("a")), limit: 1 << 20)
        }
    }

    @Test("encrypted entries and other methods are refused when read")
    func unreadable() throws {
        let folder = try TemporaryFolder()
        var layout = ZIPFixture.zip([.init(name: "a", bytes: [1, 2]), .init(name: "b", bytes: [3])])
        ZIPFixture.patch(&layout.bytes, at: layout.directoryOffset + 8, 0x0801, width: 2)
        ZIPFixture.patch(&layout.bytes, at: layout.directoryOffset + 46 + 1 + 10, 12, width: 2)
        let zip = try Self.open(layout.bytes, in: folder)
        #expect(throws: InteropError.badZIP(file: folder.file("t.zip"), reason: "entry \"a\" is encrypted")) {
            try zip.contents(of: try #require(zip.entry("a")), limit: 10)
        }
        #expect(
            throws: InteropError.badZIP(
                file: folder.file("t.zip"),
                reason: "entry \"b\" uses compression method 12; webarc reads stored and deflated entries")
        ) {
            try zip.contents(of: try #require(zip.entry("b")), limit: 10)
        }
    }

    @Test("every single-byte change to the headers and directory is read or refused, never a crash")
    func everyByte() throws {
        let folder = try TemporaryFolder()
        let layout = ZIPFixture.zip([
            .init(name: "archive/a.warc", bytes: Array(Self.text.prefix(40))),
            .init(name: "pages/pages.jsonl", bytes: Self.text, deflated: true),
        ])
        var refused = 0
        // The first member's header and data, the second's header, the directory and the end record.
        let positions = Array(0..<(layout.localOffsets[1] + 40)) + Array(layout.directoryOffset..<layout.bytes.count)
        for position in positions {
            var bytes = layout.bytes
            bytes[position] ^= 0xFF
            do {
                let zip = try Self.open(bytes, in: folder)
                for entry in zip.entries { _ = try? zip.contents(of: entry, limit: 1 << 20) }
            } catch is InteropError {
                refused += 1
            }
        }
        #expect(refused > positions.count / 4, "\(refused) of \(positions.count)")
    }
}
