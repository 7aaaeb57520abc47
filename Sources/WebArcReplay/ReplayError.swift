import WebArc

/// Why the engine could not decide an answer.
public enum ReplayError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL has no canonical form (spec §9); `reason` says why.
    case badURL(url: String, reason: String)
    /// An archive could not be read while looking `url` up.
    case archive(url: String, error: WebArcError)
    /// A stored redirect chain comes back to a URL it passed: `chain` lists the URLs in order.
    case redirectLoop(chain: [String])
    /// A stored redirect chain is longer than `limit` hops.
    case tooManyRedirects(chain: [String], limit: Int)

    public var description: String {
        switch self {
        case .badURL(let url, let reason): "no canonical form for \(url): \(reason)"
        case .archive(let url, let error): "archive error looking up \(url): \(error)"
        case .redirectLoop(let chain): "redirect loop: \(chain.joined(separator: " -> "))"
        case .tooManyRedirects(let chain, let limit):
            "more than \(limit) redirects from \(chain.first ?? "")"
        }
    }
}
