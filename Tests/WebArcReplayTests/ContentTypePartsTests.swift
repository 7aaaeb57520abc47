import Testing

@testable import WebArcReplay

@Suite struct ContentTypePartsTests {
    @Test("the media type is lower case and trimmed, without parameters; the charset unquoted and lower case")
    func splits() {
        let parts = ContentTypeParts.of(" text/HTML ; charset=\"UTF-8\"")
        #expect(parts.mimeType == "text/html")
        #expect(parts.textEncoding == "utf-8")
        #expect(ContentTypeParts.of(nil) == (nil, nil))
        #expect(ContentTypeParts.of(" ; charset=x").mimeType == nil)
    }

    @Test("a media type is type/subtype or none; the first charset counts, in any case")
    func malformed() {
        #expect(ContentTypeParts.of("nonsense") == (nil, nil))
        #expect(ContentTypeParts.of("nonsense; charset=utf-8") == (nil, "utf-8"))
        #expect(ContentTypeParts.of("text/plain; CHARSET=ISO-8859-1; charset=utf-8") == ("text/plain", "iso-8859-1"))
    }

    /// Found by FuzzHTTPRequest: U+0602 (Grapheme_Cluster_Break=Prepend) joins the `;` after it
    /// into one Character, so a split at `;` Characters kept the parameters in the media type.
    @Test("a `;` after a character that joins the next one still ends the media type")
    func prependedSemicolon() {
        let parts = ContentTypeParts.of("text/html\u{0602}; charset=UTF-8")
        #expect(parts.mimeType == "text/html\u{0602}")
        #expect(parts.mimeType?.unicodeScalars.contains(";") == false)
        #expect(parts.textEncoding == "utf-8")
    }
}
