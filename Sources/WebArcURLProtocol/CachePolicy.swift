import Foundation

extension ArchiveURLProtocol {
    /// How a handler serving a bundle with a writable layer
    /// (``serve(bundle:layer:policy:configuration:)-(LayerStack,_,_,_)``) chooses between the
    /// archive and the network, as `URLCache` users choose a request cache policy.
    ///
    /// Only GET responses are refreshed and stored; other methods are answered from the archive
    /// when it holds them and from the network otherwise (never stored). `webarc:` URLs never go
    /// to the network. What gets stored: 2xx responses (not 206), and 404 / 410 (a page the site
    /// deleted is answered with the site's own "not found", online and offline, and expires like
    /// any other entry, so a page that comes back is picked up); 5xx and other statuses leave the
    /// stored entry as it was.
    public enum CachePolicy: Equatable, Sendable {
        /// The archive only, nothing reaches the network: a miss fails with
        /// `URLError(.resourceUnavailable)`. `URLCache`'s `returnCacheDataDontLoad`.
        case offline
        /// The archive first: a stored entry is answered at once, and when its capture date is
        /// older than `maxAge` seconds (or unknown) it is refreshed in the background, on its own
        /// task that the answer never waits for (one refresh per URL at a time; the next request
        /// after it is written gets the refreshed entry; one that failed is not retried for a
        /// minute). A miss goes to the network and is stored.
        /// `URLCache`'s `returnCacheDataElseLoad`, plus the background refresh.
        case cacheFirst(maxAge: TimeInterval)
        /// The network first: the live answer when the network answers (and it is stored), the
        /// archive's when the request fails or the origin answers 5xx.
        /// `reloadIgnoringLocalCacheData` with an offline fallback.
        case networkFirst
        /// A conditional request with the validators the origin gave:
        /// 304 is answered with the archive's body (and the entry's capture date moves forward),
        /// anything else with the live response (stored). The archive answers when the request
        /// fails or the origin answers 5xx. `URLCache`'s `reloadRevalidatingCacheData`.
        case revalidate
    }
}
