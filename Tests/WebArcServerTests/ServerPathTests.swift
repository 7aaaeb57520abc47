import Foundation
import Testing
import WebArc
import WebArcServer
import WebArcTestSupport

/// Paths as browsers send them, and the URL the server prints.
@Suite struct ServerPathTests {
    @Test func percentEncodedPathsFindPackedFiles() async throws {
        let folder = try TemporaryFolder()
        let site = folder.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try Data("<p>menu</p>".utf8).write(to: URL(fileURLWithPath: site + "/café menu.html"))
        try Data("<p>home</p>".utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
        _ = try SitePacker(options: .init()).pack(folder: site, to: folder.file("site.webarc"))
        let reader = try ArchiveReader(path: folder.file("site.webarc"), mapped: true)
        try await withServer([reader]) { server in
            let menu = try fetch(server.port, "/caf%C3%A9%20menu.html")
            #expect(menu.status == 200)
            #expect(menu.text == "<p>menu</p>")
            #expect(menu.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(try fetch(server.port, "/caf%C3%A9%20menu.html?v=2").text == "<p>menu</p>")
            #expect(try fetch(server.port, "/caf%C3%A9%20other.html").status == 404)
        }
    }

    @Test func wildcardHostsPrintALoopbackURL() {
        #expect(WebArcServer.url(host: "0.0.0.0", port: 8080) == "http://127.0.0.1:8080/")
        #expect(WebArcServer.url(host: "::", port: 80) == "http://[::1]:80/")
        #expect(WebArcServer.url(host: "127.0.0.1", port: 1) == "http://127.0.0.1:1/")
        #expect(WebArcServer.url(host: "::1", port: 2) == "http://[::1]:2/")
        #expect(WebArcServer.url(host: "kiosk.local", port: 3) == "http://kiosk.local:3/")
    }
}
