import WebArc

/// Follows stored redirects from a request to what ends the chain: a stored response, a miss, a
/// redirect the caller stopped at, or a redirect whose target may not be replayed.
///
/// The server answers a stored redirect as a 3xx and lets the browser follow it; the URL protocol
/// (which swift-corelibs-foundation does not let report redirects) and `webarc cat -L` walk the
/// chain here. Each hop uses the method a browser would (303, and 301/302 after a POST, become
/// GET); a key seen before, or more than ``redirectLimit`` hops, ends the chain with an error.
///
/// ```swift
/// let chain = RedirectChain(archives: ReplayArchives(readers: [reader]))
/// if case .response(let match, _, _) = try chain.resolve(method: "GET", url: "http://localhost/about") { print(match.url) }
/// ```
///
/// Spec: `Spec/replay.md` §6.
public struct RedirectChain: Sendable {
    /// Where the next hop of a chain goes.
    public struct Hop: Equatable, Sendable {
        /// The method of the next request.
        public var method: String
        /// The absolute URL of the next request.
        public var url: String

        /// Makes a hop.
        public init(method: String, url: String) {
            self.method = method
            self.url = url
        }
    }

    /// What the caller decides about one stored redirect.
    public enum HopDecision: Sendable {
        /// Go on to `hop` (the stored target, or another the caller chose).
        case follow(Hop)
        /// End the chain here: the redirect itself is the answer.
        case stop
    }

    /// How a request ends.
    public enum Resolution: Sendable {
        /// A stored response, reached with `method` (after `redirects`, the stored hops' URLs).
        case response(ReplayMatch, method: String, redirects: [String])
        /// A stored redirect, found at `url`, that the caller chose not to follow.
        case redirect(RedirectRecord, url: String, redirects: [String])
        /// A stored redirect, found at `url`, whose target is not an http(s) or webarc URL
        /// (``ReplaySafety``): never followed; answered with its status and no `Location`.
        case refused(RedirectRecord, url: String, redirects: [String])
        /// Nothing stored for `method` `url`; `redirects` are the stored hops that led there.
        case miss(method: String, url: String, redirects: [String])
    }

    /// The archives looked in.
    public let archives: ReplayArchives
    /// The most stored redirects followed for one request (20, as browsers do).
    public var redirectLimit = 20
    /// The URLs, in order, an archive may hold a request URL under (the URL protocol maps
    /// `webarc:` to https and http here); the URL itself by default.
    public var candidates: @Sendable (String) -> [String] = { [$0] }

    /// Makes a walker over `archives`.
    public init(archives: ReplayArchives) {
        self.archives = archives
    }

    /// The record the archives answer `method` `url` with, trying each candidate URL in turn.
    ///
    /// - Throws: ``ReplayError/badURL(url:reason:)``, ``ReplayError/archive(url:error:)``, and
    ///   what an archive's byte source throws (a remote archive's transport errors) as it is.
    public func find(method: String, url: String) throws -> ReplayMatch? {
        for candidate in candidates(url) {
            do {
                if let match = try archives.find(method: method, url: candidate) { return match }
            } catch WebArcError.badURL(_, let reason) {
                throw ReplayError.badURL(url: url, reason: reason)
            } catch let error as WebArcError {
                throw ReplayError.archive(url: url, error: error)
            }
        }
        return nil
    }

    /// Follows stored redirects from `method` `url`.
    ///
    /// - Parameter approve: asked before each hop with the redirect, the URL it was found under and
    ///   the hop a browser would take; follows every hop when left out. Never asked about a
    ///   redirect whose target is not replayable.
    /// - Throws: ``ReplayError/redirectLoop(chain:)``, ``ReplayError/tooManyRedirects(chain:limit:)``,
    ///   what `approve` throws, and the errors of ``find(method:url:)``.
    public func resolve(
        method: String, url: String, approve: (RedirectRecord, String, Hop) throws -> HopDecision = { .follow($2) }
    ) throws -> Resolution {
        var method = method
        var url = url
        var visited: [String] = []
        while true {
            guard let match = try find(method: method, url: url) else {
                return .miss(method: method, url: url, redirects: visited.map(Self.url(ofKey:)))
            }
            switch match.entry.record {
            case .response:
                return .response(match, method: method, redirects: visited.map(Self.url(ofKey:)))
            case .tombstone:
                return .miss(method: method, url: url, redirects: visited.map(Self.url(ofKey:)))
            case .redirect(let redirect):
                if visited.contains(match.entry.key) {
                    throw ReplayError.redirectLoop(chain: visited.map(Self.url(ofKey:)) + [match.url])
                }
                guard ReplaySafety.isReplayable(redirect.target) else {
                    return .refused(redirect, url: match.url, redirects: visited.map(Self.url(ofKey:)))
                }
                visited.append(match.entry.key)
                guard visited.count <= redirectLimit else {
                    throw ReplayError.tooManyRedirects(chain: visited.map(Self.url(ofKey:)), limit: redirectLimit)
                }
                let proposed = Hop(method: Self.method(after: redirect.status, from: method), url: redirect.target)
                switch try approve(redirect, match.url, proposed) {
                case .follow(let hop):
                    method = hop.method
                    url = hop.url
                case .stop:
                    return .redirect(redirect, url: match.url, redirects: visited.dropLast().map(Self.url(ofKey:)))
                }
            }
        }
    }

    /// The method a browser uses to follow a redirect with `status` from a `method` request.
    public static func method(after status: Int, from method: String) -> String {
        switch status {
        case 303 where method != "HEAD": "GET"
        case 301, 302: method == "POST" ? "GET" : method
        default: method
        }
    }

    /// The URL part of a canonical key (`METHOD SP URL`).
    public static func url(ofKey key: String) -> String {
        key.firstIndex(of: " ").map { String(key[key.index(after: $0)...]) } ?? key
    }
}
