import WebArc

/// Which stored URLs a replay may send a client to: `http:`, `https:` and `webarc:` only.
///
/// An archive is data from anyone. A stored `Location` or `Refresh` that leads to `javascript:`,
/// `data:`, `file:` or any other scheme would run script in the replay's origin, open a local
/// file or leave the archive for an application the page chose; none of that is what the page
/// did when it was captured over HTTP. Such targets are never sent and never followed: a stored
/// redirect to one ends a ``RedirectChain`` with ``RedirectChain/Resolution/refused(_:url:redirects:)``
/// and is answered with its status and no `Location`; a `Location` or `Refresh` header naming one
/// is dropped (``StoredHeaders``).
///
/// Spec: `Spec/replay.md` §5.
public enum ReplaySafety {
    /// The schemes a replayed redirect or refresh may lead to.
    public static let replayableSchemes: Set<String> = ["http", "https", "webarc"]

    /// Whether `url` is absolute with a replayable scheme, or relative (it then resolves against
    /// the page's own http(s) or webarc URL). Leading spaces and controls, and tabs and newlines
    /// inside the scheme, are ignored as a browser ignores them.
    public static func isReplayable(_ url: String) -> Bool {
        var scheme: [UInt8] = []
        var started = false
        for byte in url.utf8 {
            if !started && byte <= 0x20 { continue }
            started = true
            if byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            if byte == UInt8(ascii: ":") {
                return replayableSchemes.contains(String(decoding: scheme, as: UTF8.self).lowercased())
            }
            let isSchemeByte =
                (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || (!scheme.isEmpty
                    && ((byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")))
            // Anything else before a colon (`/`, `?`, `#`, …) makes the URL relative.
            guard isSchemeByte else { return true }
            scheme.append(byte)
        }
        return true
    }

    /// The URL a `Refresh` value (`5; url=/next`, `0;URL='x'`) leads to; nil when it only reloads.
    public static func refreshTarget(_ value: String) -> String? {
        guard let semicolon = value.firstIndex(where: { $0 == ";" || $0 == "," }) else { return nil }
        var rest = value[value.index(after: semicolon)...].trimmingSpaces
        if rest.prefix(3).lowercased() == "url" {
            rest = rest.dropFirst(3).trimmingSpaces
            guard rest.first == "=" else { return String(rest) }
            rest = rest.dropFirst().trimmingSpaces
        }
        if let quote = rest.first, quote == "'" || quote == "\"" {
            rest = rest.dropFirst()
            if let end = rest.firstIndex(of: quote) { rest = rest[..<end] }
        }
        return String(rest)
    }

    /// Whether a stored header may go out: false for a `Location` or `Refresh` whose target is
    /// not replayable.
    public static func isReplayable(_ header: HTTPHeader) -> Bool {
        switch header.name.lowercased() {
        case "location": isReplayable(header.value)
        case "refresh": refreshTarget(header.value).map(isReplayable) ?? true
        default: true
        }
    }
}
