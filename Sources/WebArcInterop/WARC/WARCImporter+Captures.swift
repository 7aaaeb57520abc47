import Foundation
import WebArc

extension WARCImporter {
    /// The revisit profiles that say the payload equals an earlier record's.
    static let identicalPayloadProfiles: Set<String> = [
        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
        "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest",
        "http://netpreserve.org/warc/0.18/revisit/identical-payload-digest",
        "http://netpreserve.org/warc/0.17/revisit/identical-payload-digest",
    ]

    /// Turns the scanned records of every file into captures: requests joined to responses,
    /// revisits resolved to the payload they repeat.
    ///
    /// - Throws: ``InteropError/badURL(at:url:)`` for a target URI with no canonical form, unless `--skip-bad`.
    func captures(context: ImportContext) throws -> [Capture] {
        let originals = OriginalIndex(scanned)
        var requestByID: [String: Int] = [:]
        var requestByResponse: [String: Int] = [:]
        var requestsByURI: [String: [Int]] = [:]
        for (index, request) in requests.enumerated() {
            if let id = request.recordID { requestByID[id] = index }
            for target in request.concurrentTo { requestByResponse[target] = index }
            if let uri = request.uri { requestsByURI[uri, default: []].append(index) }
        }
        var result: [Capture] = []
        for record in scanned {
            let header = record.start.header
            let uri = header.targetURI ?? ""
            var request = RequestRecord(method: "GET", url: uri)
            if record.kind != .resource,
                let joined = findRequest(
                    for: record, byID: requestByID, byResponse: requestByResponse, byURI: &requestsByURI)
            {
                requests[joined].joined = true
                if case .request(let method, _, _) = requests[joined].head.startLine {
                    request = RequestRecord(method: method, url: uri, headers: requests[joined].head.headers)
                }
            }
            var head = record.head
            var body = record.body
            if record.kind == .revisit {
                guard let original = originals.find(for: header, in: scanned), let originalBody = scanned[original].body
                else {
                    context.note(
                        .unresolvedRevisit(
                            at: record.start.location, url: uri, payloadDigest: header["WARC-Payload-Digest"]))
                    continue
                }
                body = originalBody
                let notModified = (header["WARC-Profile"] ?? "").hasSuffix("/revisit/server-not-modified")
                if head == nil || notModified { head = scanned[original].head }
            }
            let status: Int
            let reason: String?
            let headers: [HTTPHeader]
            if case .response(_, let code, let phrase)? = head?.startLine {
                (status, reason, headers) = (code, phrase, head!.headers)
            } else {
                let contentType = header["Content-Type"]
                (status, reason, headers) = (200, "OK", contentType.map { [HTTPHeader("Content-Type", $0)] } ?? [])
            }
            // The format stores statuses 100–599 (format §7.3): a well-framed record with another
            // (LinkedIn's 999, a crawler's 000) is left out and reported; the import goes on.
            guard (100...599).contains(status) else {
                context.note(.statusOutOfRange(at: record.start.location, url: uri, status: status))
                continue
            }
            do {
                var capture = try Capture(
                    location: record.start.location, request: request, status: status, reason: reason, headers: headers,
                    captureDate: header.date, body: body.map { BodyID(source: sourceID, index: $0) })
                capture.order = record.order
                result.append(capture)
            } catch let error as InteropError {
                try context.bad(error)
            }
        }
        var unjoined: [String: Int] = [:]
        for request in requests where !request.joined { unjoined[files[request.file].path, default: 0] += 1 }
        for (path, count) in unjoined.sorted(by: { $0.key < $1.key }) {
            context.note(.recordsLeftOut(file: path, type: "request (no response)", count: count))
        }
        return result
    }

    /// The request record that asked for `record`: named by `WARC-Concurrent-To` either way, or
    /// else the first unjoined request for the same target URI in the same file.
    private func findRequest(
        for record: Scanned, byID: [String: Int], byResponse: [String: Int], byURI: inout [String: [Int]]
    ) -> Int? {
        let header = record.start.header
        for id in header.concurrentTo { if let found = byID[id], !requests[found].joined { return found } }
        if let id = header.recordID, let found = byResponse[id], !requests[found].joined { return found }
        guard let uri = header.targetURI, var candidates = byURI[uri] else { return nil }
        // A request that names its response (WARC-Concurrent-To) is never another's: a 200 with
        // no request of its own must not take the Range or HEAD request of the next capture.
        guard
            let position = candidates.firstIndex(where: {
                !requests[$0].joined && requests[$0].file == record.file && requests[$0].concurrentTo.isEmpty
            })
        else {
            return nil
        }
        let found = candidates.remove(at: position)
        byURI[uri] = candidates
        return found
    }
}

/// Finds the record a revisit repeats: by `WARC-Refers-To`, then by payload digest (preferring
/// the capture at `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`), then by target and date.
struct OriginalIndex {
    private var byID: [String: Int] = [:]
    private var byDigest: [String: [Int]] = [:]
    private var byTarget: [String: [Int]] = [:]

    init(_ scanned: [WARCImporter.Scanned]) {
        for (index, record) in scanned.enumerated() where record.kind != .revisit {
            let header = record.start.header
            if let id = header.recordID { byID[id] = index }
            if let digest = header.payloadDigest { byDigest[digest, default: []].append(index) }
            if let uri = header.targetURI, let key = try? URLKey.canonicalize(uri) {
                byTarget[key, default: []].append(index)
            }
        }
    }

    /// The position in `scanned` of the original, or nil when no input holds it.
    func find(for header: WARCRecordHeader, in scanned: [WARCImporter.Scanned]) -> Int? {
        if let id = header["WARC-Refers-To"], let found = byID[id] { return found }
        let target = header["WARC-Refers-To-Target-URI"].map(WARCRecordHeader.unbracketed).flatMap {
            try? URLKey.canonicalize($0)
        }
        let date = header["WARC-Refers-To-Date"].flatMap(ISODate.parse)
        func matchesTarget(_ index: Int) -> Bool {
            guard let target else { return false }
            let uri = scanned[index].start.header.targetURI.flatMap { try? URLKey.canonicalize($0) }
            return uri == target && (date == nil || scanned[index].start.header.date == date)
        }
        if let digest = header.payloadDigest, let candidates = byDigest[digest] {
            return candidates.first(where: matchesTarget) ?? candidates.last
        }
        if let target, let candidates = byTarget[target] { return candidates.first(where: matchesTarget) }
        return nil
    }
}
