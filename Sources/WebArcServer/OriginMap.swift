/// A web origin: scheme and authority (`host[:port]`), as canonical keys spell them.
public struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`, lower case.
    public var scheme: String
    /// Host and non-default port, lower case, e.g. `example.com` or `localhost:8000`.
    public var authority: String

    /// Makes an origin from parts already in canonical form.
    public init(scheme: String, authority: String) {
        self.scheme = scheme
        self.authority = authority
    }

    /// The origin of an absolute `http` or `https` URL, normalized like a canonical key
    /// (lower case, default port dropped); nil for other URLs.
    public init?(url: some StringProtocol) {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https", url[colon...].hasPrefix("://") else { return nil }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        self.init(scheme: scheme, rawAuthority: rest[..<end])
    }

    /// Makes an origin from an authority as a client typed it: user information dropped, lower-cased,
    /// default port removed; nil when it is empty.
    init?(scheme: String, rawAuthority: some StringProtocol) {
        var authority = rawAuthority.lowercased()
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        if authority.hasSuffix(defaultPort) { authority.removeLast(defaultPort.count) }
        guard !authority.isEmpty else { return nil }
        self.init(scheme: scheme, authority: authority)
    }

    /// `scheme://authority`, without a trailing slash.
    public var url: String { scheme + "://" + authority }

    public var description: String { url }
}

/// Where each archived origin is served, and how request targets map to archive URLs.
///
/// The scheme, for a server at `http://127.0.0.1:8080/`:
///
/// | archive URL | served at |
/// |---|---|
/// | `http://localhost/docs/a.html` (the primary origin) | `/docs/a.html` |
/// | `https://cdn.example/x.css` (any other archived origin) | `/_/https/cdn.example/x.css` |
/// | `http://example.com:8000/` | `/_/http/example.com:8000/` |
///
/// The primary origin is the start page's origin (else the origin with the most records). A path
/// that starts with `/_/` but does not name an archived origin is looked up under the primary
/// origin like any other path. Proxy-form requests (`GET http://cdn.example/x.css`) are looked up
/// as they stand, so a browser using the server as its HTTP proxy needs no rewriting at all.
public struct OriginMap: Sendable {
    /// The prefix that marks a path naming its origin.
    public static let originPrefix = "/_/"

    /// Every archived http(s) origin, in the order first met.
    public let origins: [Origin]
    /// The origin served at `/`.
    public let primary: Origin?
    private let archived: Set<Origin>

    /// Makes a map of `origins`, serving `primary` at `/`.
    public init(origins: [Origin], primary: Origin?) {
        self.origins = origins
        self.primary = primary
        archived = Set(origins)
    }

    /// Whether the archives hold records of `origin`.
    public func contains(_ origin: Origin) -> Bool { archived.contains(origin) }

    /// The path prefix `origin` is served under: empty for the primary origin, `/_/scheme/authority`
    /// for another archived origin, nil for an origin the archives do not hold.
    public func servedPrefix(of origin: Origin) -> String? {
        if origin == primary { return "" }
        guard archived.contains(origin) else { return nil }
        return "/_/" + origin.scheme + "/" + origin.authority
    }

    /// Where an origin-form target (`/path?query`) leads; nil when there is no primary origin to
    /// serve plain paths from.
    package func route(forPath target: String) -> Route? {
        if target.hasPrefix(Self.originPrefix) {
            let parts = target.dropFirst(Self.originPrefix.count).split(
                separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count >= 2, let origin = Origin(scheme: parts[0].lowercased(), rawAuthority: parts[1]),
                archived.contains(origin)
            {
                guard parts.count == 3 else { return .addSlash(location: target + "/") }
                return .archive(url: origin.url + "/" + parts[2], origin: origin)
            }
        }
        guard let primary else { return nil }
        return .archive(url: primary.url + target, origin: primary)
    }

    /// The served path for an absolute archive URL, or nil when its origin is not archived.
    public func servedPath(forArchiveURL url: String) -> String? {
        guard let origin = Origin(url: url), let prefix = servedPrefix(of: origin) else { return nil }
        let afterScheme = url[url.index(url.firstIndex(of: ":")!, offsetBy: 3)...]
        let pathStart = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let path = afterScheme[pathStart...]
        return prefix + (path.hasPrefix("/") ? "" : "/") + path
    }
}

/// What an origin-form request target leads to.
package enum Route: Equatable, Sendable {
    /// A URL to look up in the archives, and the origin its page is served as.
    case archive(url: String, origin: Origin)
    /// `/_/scheme/authority` without its slash: redirect so that relative links resolve inside it.
    case addSlash(location: String)
}
