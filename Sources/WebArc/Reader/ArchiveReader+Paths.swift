extension ArchiveReader {
    /// The URL a path names in this archive, the way `unzip -p` users name a member: resolved
    /// against the archive's base URL (or, without one, its start URL).
    ///
    /// `library/functions.html` in an archive packed under `http://localhost/` is
    /// `http://localhost/library/functions.html`; a path that starts with `/` is taken from the
    /// base URL's origin. Percent-encoding and dot segments are left to canonicalization (§9).
    ///
    /// - Returns: nil when `path` is already an absolute URL (it has a scheme) or when the archive
    ///   names neither a base nor a start URL.
    /// - Throws: page errors when the metadata page cannot be read.
    public func url(forPath path: String) throws -> String? {
        guard !Self.hasScheme(path), let base = try metadata.baseURL ?? metadata.startURL else { return nil }
        if path.hasPrefix("/") {
            guard let schemeEnd = base.range(of: "://") else { return nil }
            let authorityEnd =
                base[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? base.endIndex
            return String(base[..<authorityEnd]) + path
        }
        let withoutQuery = base.prefix { $0 != "?" && $0 != "#" }
        guard let folderEnd = withoutQuery.lastIndex(of: "/") else { return nil }
        return String(withoutQuery[...folderEnd]) + path
    }

    /// Whether `text` starts with a URL scheme and a colon (RFC 3986 §3.1: a letter, then letters,
    /// digits, `+`, `-` or `.`).
    static func hasScheme(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        return isLetter(bytes[0])
            && bytes[1..<colon].allSatisfy {
                isLetter($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ".")
            }
    }
}
