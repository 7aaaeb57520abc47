/// The kinds of input `webarc import` reads, told apart by their first bytes, never their names.
public enum InputFormat: String, Sendable, CustomStringConvertible {
    /// An uncompressed WARC (`WARC/1.0` or `WARC/1.1` at the start).
    case warc
    /// A gzip WARC: one member per record, one for the whole file, or anything between.
    case warcGzip = "warc.gz"
    /// A HAR 1.2 JSON file (a UTF-8 byte-order mark is accepted).
    case har
    /// A gzip-compressed HAR (`.har.gz`), read whole once decompressed.
    case harGzip = "har.gz"
    /// A Safari `.webarchive` property list (binary or XML).
    case webarchive
    /// A gzip-compressed `.webarchive`, read whole once decompressed.
    case webarchiveGzip = "webarchive.gz"
    /// A WACZ: a ZIP (`PK`) whose WARCs are read in place (`Spec/interop.md` §12).
    case wacz
    /// A ZIM file (Kiwix), which WebArcZim reads through libzim, not ``ArchiveImporter``
    /// (`webarc import` runs `webarc-zim` for it).
    case zim

    public var description: String {
        switch self {
        case .warc: "WARC"
        case .warcGzip: "gzip WARC"
        case .har: "HAR"
        case .harGzip: "gzip HAR"
        case .webarchive: ".webarchive"
        case .webarchiveGzip: "gzip .webarchive"
        case .wacz: "WACZ"
        case .zim: "ZIM"
        }
    }

    /// Whether the whole file is gzip data (a HAR or `.webarchive` is decompressed before it is read).
    var isGzip: Bool { self == .warcGzip || self == .harGzip || self == .webarchiveGzip }

    /// Sniffs the format of the file at `path` from its first bytes, as ``ArchiveImporter`` does.
    ///
    /// - Throws: ``InteropError/unknownFormat(file:found:)`` when the bytes match no format;
    ///   ``InteropError/io(path:operation:errno:)`` when the file cannot be read.
    public static func detect(path: String) throws -> InputFormat {
        try detect(InputFile(path: path))
    }

    /// Sniffs the format of `file` from its first bytes; for gzip data, from the first bytes it
    /// decompresses to.
    ///
    /// - Throws: ``InteropError/unknownFormat(file:found:)`` when the bytes match none of them.
    static func detect(_ file: InputFile) throws -> InputFormat {
        let head = try file.read(at: 0, count: 512)
        guard head.starts(with: [0x1F, 0x8B]) else {
            if let format = sniff(head) { return format }
            throw InteropError.unknownFormat(
                file: file.path, found: head.isEmpty ? "nothing: it is empty" : shown(head))
        }
        // A gzip header may carry a file name and a comment before the data: look further in.
        let compressed = try file.read(at: 0, count: 64 << 10)
        var inner: [UInt8] = []
        if let inflater = try? Inflater(format: .gzip) {
            _ = try? inflater.inflate(compressed[...], into: &inner, limit: 512)
        }
        switch sniff(inner) {
        case .warc: return .warcGzip
        case .har: return .harGzip
        case .webarchive: return .webarchiveGzip
        default:
            throw InteropError.unknownFormat(
                file: file.path,
                found: "gzip data that decompresses to " + (inner.isEmpty ? "nothing readable" : shown(inner)))
        }
    }

    /// The uncompressed format `head` starts with, or nil.
    private static func sniff(_ head: [UInt8]) -> InputFormat? {
        var text = head[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if text.starts(with: Array("WARC/".utf8)) { return .warc }
        // ZIM's magic number, 72173914 little-endian.
        if head.starts(with: [0x5A, 0x49, 0x4D, 0x04]) { return .zim }
        // A ZIP's first local header, or the end record of an empty ZIP; a ZIP that is not a WACZ is refused later, by name.
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return .wacz }
        if text.starts(with: Array("bplist00".utf8)) { return .webarchive }
        if text.starts(with: Array("<?xml".utf8)) || text.starts(with: Array("<!DOCTYPE plist".utf8))
            || text.starts(with: Array("<plist".utf8))
        {
            return .webarchive
        }
        if text.first == UInt8(ascii: "{") { return .har }
        return nil
    }

    /// The first 12 bytes, quoted, non-printable ones as dots.
    private static func shown(_ head: [UInt8]) -> String {
        "\"" + head.prefix(12).map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "." }.joined() + "\""
    }
}
