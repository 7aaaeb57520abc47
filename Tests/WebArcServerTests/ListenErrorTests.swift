import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

#if canImport(Glibc)
import Glibc
#endif

/// A server that cannot listen says why in one sentence: the port in use, a privileged port, a
/// host that is not this machine's or does not exist.
@Suite struct ListenErrorTests {
    @Test func aPortAnotherProgramListensOnIsInUse() async throws {
        let folder = try TemporaryFolder()
        let archives = try ArchiveSet(readers: [try SiteFixture.make(in: folder)])
        let other = try TestHTTPServer { _ in .init(text: "taken") }
        defer { other.stop() }
        await #expect(throws: WebArcServerError.portInUse(host: "127.0.0.1", port: other.port)) {
            _ = try await WebArcServer.start(archives: archives, configuration: .init(port: other.port, threads: 1))
        }
        #expect(
            WebArcServerError.portInUse(host: "127.0.0.1", port: 8080).description
                == "cannot listen on 127.0.0.1:8080: the port is in use")
    }

    @Test func anAddressNotOfThisMachineIsNotAvailable() async throws {
        let folder = try TemporaryFolder()
        let archives = try ArchiveSet(readers: [try SiteFixture.make(in: folder)])
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never an address of this machine.
        await #expect(throws: WebArcServerError.addressNotAvailable(host: "192.0.2.1", port: 0)) {
            _ = try await WebArcServer.start(
                archives: archives, configuration: .init(host: "192.0.2.1", port: 0, threads: 1))
        }
    }

    @Test func errnoValuesMapToTheirCases() {
        #expect(
            WebArcServerError(listening: EADDRINUSE, host: "::1", port: 80, reason: "r")
                == .portInUse(host: "::1", port: 80))
        #expect(
            WebArcServerError(listening: EACCES, host: "127.0.0.1", port: 80, reason: "r")
                == .permissionDenied(host: "127.0.0.1", port: 80))
        #expect(
            WebArcServerError(listening: EPERM, host: "127.0.0.1", port: 80, reason: "r")
                == .permissionDenied(host: "127.0.0.1", port: 80))
        #expect(
            WebArcServerError(listening: EADDRNOTAVAIL, host: "10.9.9.9", port: 1, reason: "r")
                == .addressNotAvailable(host: "10.9.9.9", port: 1))
        #expect(
            WebArcServerError(listening: EIO, host: "h", port: 1, reason: "r")
                == .cannotListen(host: "h", port: 1, reason: "r"))
        #expect(
            WebArcServerError(listening: nil, host: "h", port: 1, reason: "r")
                == .cannotListen(host: "h", port: 1, reason: "r"))
        #expect(
            WebArcServerError.portInUse(host: "::1", port: 80).description
                == "cannot listen on [::1]:80: the port is in use")
        #expect(
            WebArcServerError.permissionDenied(host: "127.0.0.1", port: 80).description
                == "cannot listen on 127.0.0.1:80: permission denied: ports below 1024 need root or CAP_NET_BIND_SERVICE"
        )
    }
}
