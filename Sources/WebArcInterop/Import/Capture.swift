import Foundation
import WebArc

/// Names a body that an input can store on request: which source holds it, and its number there.
struct BodyID: Hashable {
    let source: Int
    let index: Int
}

/// One capture read from an input, before the duplicates rule and before its body is stored.
struct Capture {
    /// What the capture becomes in the archive.
    enum Kind {
        case response(status: Int, reason: String?, headers: [HTTPHeader])
        case redirect(status: Int, target: String, headers: [HTTPHeader])
    }

    var location: InputLocation
    var request: RequestRecord
    var kind: Kind
    var captureDate: Date?
    /// The body, for responses.
    var body: BodyID?
    /// Media type and charset to use when no `Content-Type` header says them.
    var fallbackMIMEType: String?
    var fallbackTextEncoding: String?
    /// The canonical key (spec §7.1), computed when the capture is made.
    var key: String
    /// Position among all captures of the import, for ties and output order.
    var order = 0

    /// Makes a capture, turning a 301/302/303/307/308 with a usable `Location` into a redirect.
    ///
    /// - Throws: ``InteropError/badURL(at:url:)`` when the request URL has no canonical form.
    init(
        location: InputLocation, request: RequestRecord, status: Int, reason: String?, headers: [HTTPHeader],
        captureDate: Date?, body: BodyID?, redirectTarget: String? = nil
    ) throws {
        self.location = location
        self.request = request
        self.captureDate = captureDate
        self.body = body
        do {
            key = try URLKey.key(method: request.method, url: request.url)
        } catch {
            throw InteropError.badURL(at: location, url: request.url)
        }
        let target = (redirectTarget.flatMap { $0.isEmpty ? nil : $0 } ?? headers.value(for: "Location"))
            .flatMap { Self.resolve($0, against: request.url) }
        if RedirectRecord.allowedStatuses.contains(status), let target {
            let kept = headers.removing("Content-Length").removing("Content-Encoding").removing("Transfer-Encoding")
            kind = .redirect(status: status, target: target, headers: kept)
            self.body = nil
        } else {
            kind = .response(status: status, reason: reason, headers: headers)
            if status == 206 {
                self.request = Self.markedPartial(request, contentRange: headers.value(for: "Content-Range"))
            }
        }
    }

    /// A 206's request, with the `Range` header its `Content-Range` implies when the captured
    /// request does not show one, so that the stored `Request` says which range the record
    /// answers (`bytes=first-last`). Replay matches partial records by it (`Spec/interop.md` §4).
    static func markedPartial(_ request: RequestRecord, contentRange: String?) -> RequestRecord {
        guard request.headers.value(for: "Range") == nil, let contentRange else { return request }
        let text = contentRange.trimmingHTTPWhitespace()
        guard String(text.prefix(6)).lowercased() == "bytes ", text.contains("/") else { return request }
        let span = String(text.dropFirst(6).prefix { $0 != "/" }).trimmingHTTPWhitespace()
        let bounds = span.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = UInt64(bounds[0]), let last = UInt64(bounds[1]), first <= last else {
            return request
        }
        var marked = request
        marked.headers.append(HTTPHeader("Range", "bytes=\(first)-\(last)"))
        return marked
    }

    /// How much of the representation the capture holds, for the duplicates rule: 2 for a full
    /// answer, 1 for a 206 (a part), 0 for a 304 (none).
    var completeness: Int {
        switch status {
        case 206: 1
        case 304: 0
        default: 2
        }
    }

    /// Whether the response carries no body by definition (an answer to `HEAD`, a 304), so its
    /// `Content-Length` and `Content-Encoding` describe the representation, not a stored body.
    var isBodiless: Bool { status == 304 || request.method.uppercased() == "HEAD" }

    /// The status the capture holds.
    var status: Int {
        switch kind {
        case .response(let status, _, _), .redirect(let status, _, _): status
        }
    }

    /// `reference` resolved against `base` (RFC 3986), or nil when the result is not absolute.
    static func resolve(_ reference: String, against base: String) -> String? {
        let trimmed = reference.trimmingHTTPWhitespace()
        if (try? URLKey.canonicalize(trimmed)) != nil, trimmed.contains(":"),
            trimmed.prefix(while: { $0 != ":" }).allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        {
            return trimmed
        }
        let escaped = trimmed.addingPercentEncoding(withAllowedCharacters: .urlAllowed) ?? trimmed
        guard
            let baseURL = URL(string: base)
                ?? URL(string: base.addingPercentEncoding(withAllowedCharacters: .urlAllowed) ?? base),
            let resolved = URL(string: escaped, relativeTo: baseURL)?.absoluteString,
            (try? URLKey.canonicalize(resolved)) != nil
        else { return nil }
        return resolved
    }
}

extension CharacterSet {
    /// Characters left as they are when a URL reference is escaped before parsing: every ASCII
    /// character that may appear in a URL, `%` included so existing escapes survive.
    static let urlAllowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.formUnion(.urlPathAllowed)
        set.formUnion(.urlFragmentAllowed)
        set.insert(charactersIn: "%#?/:@!$&'()*+,;=[]")
        return set
    }()
}
