/// The kinds of input `webarc import` reads, told apart by their first bytes, never their names.
public enum InputFormat: String, Sendable, CustomStringConvertible {
    /// An uncompressed WARC (`WARC/1.0` or `WARC/1.1` at the start).
    case warc
    /// A gzip WARC: one member per record, one for the whole file, or anything between.
    case warcGzip = "warc.gz"
    /// A HAR 1.2 JSON file (a UTF-8 byte-order mark is accepted).
    case har
    /// A Safari `.webarchive` property list (binary or XML).
    case webarchive

    public var description: String {
        switch self {
        case .warc: "WARC"
        case .warcGzip: "gzip WARC"
        case .har: "HAR"
        case .webarchive: ".webarchive"
        }
    }

    /// Sniffs the format of `file` from its first bytes.
    ///
    /// - Throws: ``InteropError/unknownFormat(file:found:)`` when the bytes match none of them.
    static func detect(_ file: InputFile) throws -> InputFormat {
        let head = try file.read(at: 0, count: 512)
        if head.starts(with: [0x1F, 0x8B]) {
            var output: [UInt8] = []
            if let inflater = try? Inflater(format: .gzip) {
                _ = try? inflater.inflate(head[...], into: &output, limit: 64)
            }
            if output.starts(with: Array("WARC/".utf8)) { return .warcGzip }
            throw InteropError.unknownFormat(file: file.path, found: "gzip data that is not a WARC")
        }
        var text = head[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if text.starts(with: Array("WARC/".utf8)) { return .warc }
        if text.starts(with: Array("bplist00".utf8)) { return .webarchive }
        if text.starts(with: Array("<?xml".utf8)) || text.starts(with: Array("<!DOCTYPE plist".utf8))
            || text.starts(with: Array("<plist".utf8))
        {
            return .webarchive
        }
        if text.first == UInt8(ascii: "{") { return .har }
        let shown = head.prefix(12).map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "." }.joined()
        throw InteropError.unknownFormat(file: file.path, found: head.isEmpty ? "nothing: it is empty" : "\"\(shown)\"")
    }
}
