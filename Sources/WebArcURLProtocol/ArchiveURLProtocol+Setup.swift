import Foundation
import WebArc

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ArchiveURLProtocol {
    /// What happens to a request the archives do not hold.
    public enum MissPolicy: Equatable, Sendable {
        /// The request goes to the network as if the handler were not there.
        case passThrough
        /// The request fails with `URLError(.resourceUnavailable)` naming the URL, the way an
        /// offline cache answers; nothing reaches the network.
        case offline
    }

    /// The archives and miss policy of one handler class.
    struct Setup: Sendable {
        var archives: [ArchiveReader]
        var onMiss: MissPolicy
    }

    static let setups = ProtocolRegistry<Setup>()

    /// Serves `archives` through this class, replacing what it served before.
    ///
    /// - Parameters:
    ///   - archives: looked up in order; the first that holds a URL answers it.
    ///   - onMiss: what happens to requests none of them holds.
    public class func serve(_ archives: [ArchiveReader], onMiss: MissPolicy = .offline) {
        setups.set(Setup(archives: archives, onMiss: onMiss), for: self)
    }

    /// Serves one archive through this class, replacing what it served before.
    public class func serve(_ archive: ArchiveReader, onMiss: MissPolicy = .offline) {
        serve([archive], onMiss: onMiss)
    }

    /// Stops serving: this class then declines every request (they go to the network).
    public class func stopServing() {
        setups.set(nil, for: self)
    }
}
