import NIOHTTP1

extension ArchiveRequest {
    /// The request line and the headers that change the answer, from NIO's parsed head.
    init(_ head: HTTPRequestHead) {
        self.init(
            method: head.method.rawValue, target: head.uri, range: head.headers.first(name: "range"),
            ifRange: head.headers.first(name: "if-range"), ifNoneMatch: head.headers.first(name: "if-none-match"),
            ifModifiedSince: head.headers.first(name: "if-modified-since"),
            acceptLanguage: head.headers.first(name: "accept-language"))
    }
}
