import Testing
import WebArcRemote

/// The words of a transport failure point at a fix only when that fix applies.
@Suite("RemoteError messages")
struct RemoteErrorTests {
    static let untrusted = "the server's certificate is not trusted (CERTIFICATE_VERIFY_FAILED)"

    @Test(
        "SSL_CERT_FILE is suggested only for a certificate that does not verify; an http:// URL names its redirect to https"
    )
    func tlsHint() {
        #expect(
            RemoteError.tls(url: "https://cdn.test/a.webarc", reason: Self.untrusted).description
                == "https://cdn.test/a.webarc: TLS failed: \(Self.untrusted) (a private CA: set SSL_CERT_FILE to its PEM file)"
        )
        #expect(
            RemoteError.tls(url: "https://cdn.test/a.webarc", reason: "WRONG_VERSION_NUMBER").description
                == "https://cdn.test/a.webarc: TLS failed: WRONG_VERSION_NUMBER")
        #expect(
            RemoteError.tls(url: "http://localhost/a.webarc", reason: Self.untrusted).description
                == "http://localhost/a.webarc: TLS failed after a redirect to https: \(Self.untrusted) (a private CA: set SSL_CERT_FILE to its PEM file)"
        )
        for error in [
            RemoteError.connection(url: "http://localhost/a.webarc", reason: "connection reset by peer (errno 104)"),
            .unreachable(url: "http://localhost/a.webarc", reason: "connection refused (errno 111)"),
            .notFound(url: "http://localhost/a.webarc", status: 404),
            .timedOut(url: "http://localhost/a.webarc", range: nil),
        ] {
            #expect(!error.description.contains("SSL_CERT_FILE"), "\(error)")
        }
    }
}
