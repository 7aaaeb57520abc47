/// One file of a ZIP: its central directory entry, and where its data starts (read from its local
/// header when the ZIP is opened).
///
/// Spec: APPNOTE 6.3.10 §4.3.12 (central directory header), §4.5.3 (ZIP64 extra field).
struct ZIPEntry: Equatable, Sendable {
    /// The name as stored (UTF-8; bytes that are not are replaced), with `/` between folders.
    var name: String
    /// 0 stored, 8 deflated; nothing else is read.
    var method: UInt16
    var flags: UInt16
    var crc32: UInt32
    /// Bytes of data in the file.
    var compressedSize: UInt64
    /// Bytes once inflated (the same as ``compressedSize`` when stored).
    var size: UInt64
    var localHeaderOffset: UInt64
    /// The first data byte, after the local header's name and extra field.
    var dataOffset: UInt64 = 0

    static let stored: UInt16 = 0
    static let deflated: UInt16 = 8

    /// Traditional or strong encryption (general purpose bits 0 and 6).
    var isEncrypted: Bool { flags & 0x41 != 0 }
    /// A folder entry, which holds no data.
    var isDirectory: Bool { name.hasSuffix("/") }
    /// Where the data ends (checked not to overflow when the ZIP was opened).
    var dataEnd: UInt64 { dataOffset + compressedSize }

    /// Why `name` may not be read, or nil: empty, a NUL, an absolute path (`/x`, `\x`, `C:x`) or a
    /// `..` component, which an extracting tool would write outside its folder. webarc extracts
    /// nothing, but such a ZIP is hostile or broken, and its other names cannot be trusted either.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "an entry has an empty name" }
        if name.utf8.contains(0) { return "entry \"\(shown(name))\" has a NUL byte in its name" }
        let bytes = Array(name.utf8)
        let isDrive =
            bytes.count >= 2 && bytes[1] == UInt8(ascii: ":") && (bytes[0] | 0x20) >= 0x61 && (bytes[0] | 0x20) <= 0x7A
        if bytes[0] == UInt8(ascii: "/") || bytes[0] == UInt8(ascii: "\\") || isDrive {
            return "entry \"\(shown(name))\" has an absolute path"
        }
        // Split as bytes: a Prepend scalar (U+0600) joins the `/` after it into one Character.
        let components = bytes.split(whereSeparator: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") })
        if components.contains(where: { $0.elementsEqual("..".utf8) }) {
            return "entry \"\(shown(name))\" climbs out of its folder with \"..\""
        }
        return nil
    }

    /// A name as messages show it: control characters as `?`, at most 200 characters.
    static func shown(_ name: String) -> String {
        let cleaned = String(name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return cleaned.count > 200 ? cleaned.prefix(200) + "…" : cleaned
    }
}
