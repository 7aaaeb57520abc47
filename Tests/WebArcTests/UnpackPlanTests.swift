import Testing

@testable import WebArc

/// URL-to-path mapping of `unpack`: every path stays inside the output folder.
@Suite("Unpack paths")
struct UnpackPlanTests {
    @Test("a Prepend scalar before a slash does not hide a `..` segment")
    func prependScalarBeforeSlash() {
        // As Characters, U+0600 and the `/` after it are one, so a Character split saw `\u{0600}/..`
        // as one harmless segment; the file system sees `\u{0600}`, then `..`.
        let mapped = UnpackPlan.relativePath(forCanonicalURL: "http://h/\u{0600}/../x.html", includeOrigin: false)
        #expect(mapped == nil)
        let nested = UnpackPlan.relativePath(forCanonicalURL: "http://h/a/\u{0600}/b.html", includeOrigin: false)
        #expect(nested == ["a", "\u{0600}", "b.html"])
    }

    @Test("ordinary URLs map to their path, folders to index.html")
    func ordinaryPaths() {
        #expect(UnpackPlan.relativePath(forCanonicalURL: "http://h/a/b.html", includeOrigin: false) == ["a", "b.html"])
        #expect(UnpackPlan.relativePath(forCanonicalURL: "http://h/a/", includeOrigin: false) == ["a", "index.html"])
        #expect(
            UnpackPlan.relativePath(forCanonicalURL: "http://h:8080/", includeOrigin: true) == ["h_8080", "index.html"])
    }
}
