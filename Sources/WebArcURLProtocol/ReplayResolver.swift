import WebArc

/// Finds what a set of archives answers for a request, following stored redirects to the end.
///
/// swift-corelibs-foundation cannot take a redirect from a URL protocol (see ``ArchiveURLProtocol``),
/// so the chain is walked here: each stored redirect leads to a lookup of its target, with the
/// method a browser would use (303, and 301/302 after a POST, become GET), until a stored response
/// ends it. A target seen before, or more than ``redirectLimit`` hops, ends it with an error.
/// Before each hop the caller may approve it, change where it goes, or stop the chain there (see
/// ``RedirectApproval``).
struct ReplayResolver: Sendable {
    /// Where the next hop of a chain goes.
    struct Hop: Equatable, Sendable {
        var method: String
        var url: String
    }

    /// What the caller decides about one stored redirect.
    enum HopDecision: Sendable {
        /// Go on to `hop` (the stored target, or another the caller chose).
        case follow(Hop)
        /// End the chain here: the redirect itself is the answer.
        case stop
    }

    /// A record one of the archives holds, and the URL it was found under.
    struct Hit: Sendable {
        let entry: ArchiveEntry
        let reader: ArchiveReader
        let url: String
    }

    /// How a request ends.
    enum Resolution: Sendable {
        /// A stored response, reached at `url` (after any redirects) with `method`.
        case response(ResponseRecord, reader: ArchiveReader, url: String, method: String, redirects: [String])
        /// A stored redirect, found at `url`, that the caller chose not to follow.
        case redirect(RedirectRecord, url: String, redirects: [String])
        /// Nothing stored for `method` `url`; `redirects` are the stored hops that led there.
        case miss(method: String, url: String, redirects: [String])
    }

    /// Archives in order of preference: the first that holds a URL answers it.
    let archives: [ArchiveReader]
    /// The most stored redirects followed for one request (20, as browsers do).
    var redirectLimit = 20

    /// The first record the archives hold for `method` `url`; a HEAD falls back to the GET record.
    ///
    /// - Throws: `badURL` for a URL with no canonical form; `archive` when an index is damaged.
    func find(method: String, url: String) throws(WebArcURLProtocolError) -> Hit? {
        let methods = method == "HEAD" ? ["HEAD", "GET"] : [method]
        for candidate in WebArcScheme.candidates(for: url) {
            for method in methods {
                for reader in archives {
                    do {
                        if let entry = try reader.lookup(method: method, url: candidate) {
                            // A tombstone (an update deleting the URL) answers "not found" for every
                            // archive below it.
                            if case .tombstone = entry.record { return nil }
                            return Hit(entry: entry, reader: reader, url: candidate)
                        }
                    } catch WebArcError.badURL {
                        throw .badURL(url: url)
                    } catch {
                        throw .archive(url: url, error: error as? WebArcError ?? .badURL(url: url, reason: "\(error)"))
                    }
                }
            }
        }
        return nil
    }

    /// Follows stored redirects from `method` `url` to a stored response, a miss, or a redirect
    /// that `approve` stopped at.
    ///
    /// - Parameter approve: asked before each hop with the redirect, the URL it was found under and
    ///   the hop a browser would take; follows every hop when left out.
    /// - Throws: `redirectLoop`, `tooManyRedirects`, what `approve` throws, and the errors of
    ///   ``find(method:url:)``.
    func resolve(
        method: String, url: String,
        approve: (RedirectRecord, String, Hop) throws(WebArcURLProtocolError) -> HopDecision = { .follow($2) }
    ) throws(WebArcURLProtocolError) -> Resolution {
        var method = method
        var url = url
        var visited: [String] = []
        while true {
            guard let hit = try find(method: method, url: url) else {
                return .miss(method: method, url: url, redirects: visited)
            }
            switch hit.entry.record {
            case .response(let response):
                return .response(response, reader: hit.reader, url: hit.url, method: method, redirects: visited)
            case .tombstone:
                return .miss(method: method, url: url, redirects: visited)
            case .redirect(let redirect):
                if visited.contains(hit.entry.key) {
                    throw .redirectLoop(chain: visited.map(Self.url(ofKey:)) + [hit.url])
                }
                visited.append(hit.entry.key)
                guard visited.count <= redirectLimit else {
                    throw .tooManyRedirects(chain: visited.map(Self.url(ofKey:)), limit: redirectLimit)
                }
                let proposed = Hop(method: Self.method(after: redirect.status, from: method), url: redirect.target)
                switch try approve(redirect, hit.url, proposed) {
                case .follow(let hop):
                    method = hop.method
                    url = hop.url
                case .stop:
                    return .redirect(redirect, url: hit.url, redirects: Array(visited.dropLast()))
                }
            }
        }
    }

    /// The method a browser uses to follow a redirect with `status` from a `method` request.
    static func method(after status: Int, from method: String) -> String {
        switch status {
        case 303 where method != "HEAD": "GET"
        case 301, 302: method == "POST" ? "GET" : method
        default: method
        }
    }

    /// The URL part of a canonical key (`METHOD SP URL`).
    static func url(ofKey key: String) -> String {
        key.firstIndex(of: " ").map { String(key[key.index(after: $0)...]) } ?? key
    }
}
