import Testing
import WebArcHTML

@Suite struct SourceSetTests {
    @Test func candidatesAndDescriptors() {
        #expect(SourceSet.urls(in: "a.png 1x, b.png 2x") == ["a.png", "b.png"])
        #expect(SourceSet.urls(in: "  a.png, b.png 480w,, c.png") == ["a.png", "b.png", "c.png"])
        #expect(SourceSet.urls(in: "a.png,b.png") == ["a.png,b.png"], "a comma inside a URL is part of it")
        #expect(SourceSet.urls(in: "img,1.png 1x") == ["img,1.png"])
        #expect(SourceSet.urls(in: "") == [])
    }
}
