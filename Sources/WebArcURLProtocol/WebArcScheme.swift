/// The `webarc:` URL scheme: addresses archive content without claiming http or https traffic.
///
/// `webarc://example.com/a?b` names what the archives hold for `webarc://example.com/a?b`, else
/// for `https://example.com/a?b`, else for `http://example.com/a?b`. A `webarc:` request never goes
/// to the network, whatever the miss policy, and the response URL keeps the `webarc:` scheme, so
/// that relative links in the page resolve through the handler again.
public enum WebArcScheme {
    /// The scheme name.
    public static let name = "webarc"

    /// The URLs, in order, an archive may hold a request for `url` under.
    static func candidates(for url: String) -> [String] {
        guard let rest = remainder(of: url) else { return [url] }
        return [url, "https:" + rest, "http:" + rest]
    }

    /// `url` as a caller that asked in `requestScheme` sees it.
    static func presented(_ url: String, requestScheme: String) -> String {
        guard requestScheme == name, !url.lowercased().hasPrefix(name + ":"), let colon = url.firstIndex(of: ":")
        else { return url }
        return name + url[colon...]
    }

    /// Whether `url` uses the `webarc:` scheme.
    static func isWebArc(_ url: String) -> Bool { remainder(of: url) != nil }

    private static func remainder(of url: String) -> Substring? {
        guard url.count > name.count, url.prefix(name.count + 1).lowercased() == name + ":" else { return nil }
        return url.dropFirst(name.count + 1)
    }
}
