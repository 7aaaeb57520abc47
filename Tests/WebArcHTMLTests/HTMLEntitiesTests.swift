import Testing
import WebArcHTML

@Suite struct HTMLEntitiesTests {
    @Test func theReferencesLinksHold() {
        #expect(HTMLEntities.decode("a?b=1&amp;c=2&#38;d=&quot;&#39;&apos;") == "a?b=1&c=2&d=\"''")
        #expect(HTMLEntities.decode("&amp;quot; &copy; & &am") == "&quot; &copy; & &am")
        #expect(HTMLEntities.decode("plain") == "plain")
    }
}
