import Testing
import WebArcHTML
import WebArcTestSupport

/// Input an attacker or a broken page sends: the tokenizer must end, in linear time, with tokens
/// that cover the document exactly.
@Suite struct HostileHTMLTests {
    /// Tokenizes `bytes` and checks what holds for every input: the tokens cover every byte once,
    /// in order; attributes lie inside their tag, values inside their attribute.
    @discardableResult
    static func checkInvariants(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [HTMLToken] {
        let tokens = Array(HTMLTokenizer(bytes))
        var covered = 0
        for token in tokens {
            guard token.range.lowerBound == covered, !token.range.isEmpty else {
                Issue.record("token \(token) does not start at \(covered) or is empty", sourceLocation: sourceLocation)
                return tokens
            }
            covered = token.range.upperBound
            guard case .startTag(let tag) = token else { continue }
            for attribute in tag.attributes {
                let inside =
                    tag.range.contains(attribute.range.lowerBound) && attribute.range.upperBound <= tag.range.upperBound
                    && attribute.range.lowerBound == attribute.nameRange.lowerBound
                    && (attribute.valueRange.map {
                        $0.lowerBound >= attribute.nameRange.upperBound && $0.upperBound <= attribute.range.upperBound
                    } ?? true)
                #expect(inside, "attribute \(attribute) outside tag \(tag.range)", sourceLocation: sourceLocation)
            }
        }
        #expect(
            covered == bytes.count, "tokens cover \(covered) of \(bytes.count) bytes", sourceLocation: sourceLocation)
        return tokens
    }

    @Test func emptyInputHasNoTokens() {
        #expect(Array(HTMLTokenizer([])).isEmpty)
    }

    @Test(
        "unterminated tags, comments, quotes and raw text",
        arguments: [
            "<", "<a", "<a ", "<a b", "<a b=", "<a b='", "<a b=\"x", "<a b=x", "<!", "<!-", "<!--", "<!---",
            "<!-- x --", "</", "</a",
            "</a b='>", "<?", "<script>", "<script>x</script", "<style>a{}</sty", "<title>", "<a/", "<a b/", "<<<<",
            "<!--->-->",
        ])
    func unterminated(text: String) {
        Self.checkInvariants(Array(text.utf8))
    }

    @Test func nulBytesAndInvalidUTF8() throws {
        let bytes: [UInt8] =
            Array("<a\0 hr".utf8) + [0xFF, 0xC3] + Array("ef=\"x".utf8) + [0, 0xFE] + Array("\">\0<b>".utf8)
        let tokens = Self.checkInvariants(bytes)
        guard case .startTag(let tag) = tokens.first else {
            Issue.record("no start tag in \(tokens)")
            return
        }
        #expect(tag.name == "a\0")
        #expect(tag.attributes.map(\.name) == ["hr\u{FFFD}\u{FFFD}ef"])
        #expect(tag.attributes.first?.value == "x\0\u{FFFD}")
        #expect(tokens.count == 3)
    }

    /// Inputs that make a naive scanner quadratic: each would take hours at n² (n is 4 MiB), so a
    /// regression shows as the suite's time limit, not as a timing assertion.
    @Test(
        .timeLimit(.minutes(10)),
        arguments: [
            "<a", "<!--", "<script>", "</scrip", "<a b='", "<a b", "-", "<!-- --", "<<", "<a\"=", "</a ", "<style></st",
        ])
    func repetitionsStayLinear(unit: String) {
        let bytes = Array(String(repeating: unit, count: (4 << 20) / unit.utf8.count).utf8)
        Self.checkInvariants(bytes)
    }

    @Test(.timeLimit(.minutes(10)))
    func aHugeAttributeValue() throws {
        let value = String(repeating: "x", count: 16 << 20)
        let tokens = Self.checkInvariants(Array("<img src=\"\(value)\" alt=y>".utf8))
        guard case .startTag(let tag) = tokens.first else {
            Issue.record("no start tag")
            return
        }
        #expect(tag.value("src")?.utf8.count == 16 << 20)
        #expect(tag.value("alt") == "y")
    }

    @Test("random bytes drawn from markup characters", arguments: 0..<8)
    func randomMarkup(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let alphabet = Array("<>/!-=\"' \tabcsriptylet?\0\u{FF}".utf8)
        for _ in 0..<200 {
            let count = Int.random(in: 0..<400, using: &generator)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
            Self.checkInvariants(bytes)
        }
    }

    @Test func pieceOfEveryKindCoversTheDocument() {
        let page =
            #"<!DOCTYPE html><html><!-- c --><head><style>a{b:url(x)}</style><script>1<2</script></head>"#
            + #"<body class=x>text &amp; more<img src='i.png'/></body></html>"#
        let tokens = Self.checkInvariants(Array(page.utf8))
        #expect(tokens.count == 16)
    }
}
