import WebArcHTML

/// The visible-text walk over ``HTMLTokenizer``'s tokens (a string per tag and attribute name):
/// the reference ``VisibleTextReader`` must agree with, which the differential test and fuzz
/// target compare it with on whole pages.
struct TokenVisibleTextReader {
    private struct OpenElement {
        var name: String
        var traits: ElementTraits
    }

    /// How deep the stack of open elements goes; deeper elements are not followed.
    private static let maxDepth = 512
    /// How far down the stack an end tag looks for its element.
    private static let endTagReach = 64
    /// The page, or the part of it read so far.
    private var html: [UInt8]
    private var text: TextBuffer
    private var charsetKnown: Bool
    private var stack: [OpenElement] = []
    /// The index in ``stack`` of the element whose contents are being left out.
    private var skippedFrom: Int?
    /// `article`, `main` and `section` elements open.
    private var sectioning = 0
    private var title: String?
    private var headings: [String] = []
    /// The open heading: its index in ``stack`` and where its text starts.
    private var heading: (element: Int, start: Int)?

    init(_ html: [UInt8], encoding: TextBuffer.Encoding, charsetKnown: Bool, limit: Int = VisibleText.maxTextBytes) {
        self.html = html
        self.charsetKnown = charsetKnown
        // Visible text is usually a few percent of the markup.
        text = TextBuffer(limit: limit, encoding: encoding, reserve: html.count / 8)
        stack.reserveCapacity(32)
    }

    /// The title, visible text and headings of the whole page.
    mutating func read() -> PageText {
        let html = self.html
        html.withUnsafeBufferPointer { bytes in
            var tokenizer = HTMLTokenizer(html, in: (VisibleText.hasUTF8Mark(html) ? 3 : 0)..<html.count)
            while let token = tokenizer.next(), !text.isFull { take(token, bytes) }
        }
        return finish()
    }

    /// Follows one token of the page.
    private mutating func take(_ token: HTMLToken, _ bytes: UnsafeBufferPointer<UInt8>) {
        switch token {
        case .text(let range):
            if skippedFrom == nil { text.append(bytes, range) }
        case .rawText(let element, let range):
            if element == "title", title == nil, !isInside("svg") { title = readTitle(bytes, range) }
        case .startTag(let tag):
            start(tag)
        case .endTag(let name, _):
            end(name)
        case .comment:
            break
        }
    }

    private mutating func finish() -> PageText {
        if let heading { finishHeading(heading.start) }
        return PageText(title: title ?? "", text: text.text, headings: headings)
    }

    private func isInside(_ name: String) -> Bool {
        stack.contains { $0.name == name }
    }

    private func readTitle(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        var title = TextBuffer(limit: VisibleText.maxTitleBytes, encoding: text.encoding, reserve: range.count)
        title.append(bytes, range)
        return title.text
    }

    private mutating func start(_ tag: HTMLTag) {
        let traits = ElementTraits.of(tag.name)
        closeImpliedElements(before: tag.name, traits)
        let skipping = skippedFrom != nil
        if traits.contains(.void) || tag.isSelfClosing {
            if !skipping, traits.contains(.block) { text.separate(block: true) }
            if tag.name == "meta", !charsetKnown, text.bytes.isEmpty { readCharset(tag) }
            return
        }
        guard stack.count < Self.maxDepth else { return }
        stack.append(OpenElement(name: tag.name, traits: traits))
        if traits.contains(.sectioning) { sectioning += 1 }
        guard !skipping else { return }
        if isSkipped(tag, traits) {
            skippedFrom = stack.count - 1
        } else {
            if traits.contains(.block) { text.separate(block: true) }
            if traits.contains(.heading) {
                if let heading { finishHeading(heading.start) }
                heading = (stack.count - 1, text.bytes.count)
            }
        }
    }

    private mutating func end(_ name: String) {
        let traits = ElementTraits.of(name)
        let reach = Swift.max(0, stack.count - Self.endTagReach)
        if let index = stack[reach...].lastIndex(where: { $0.name == name }) {
            pop(to: index)
        }
        if skippedFrom == nil, traits.contains(.block) { text.separate(block: true) }
    }

    /// Closes the elements from `index` up.
    private mutating func pop(to index: Int) {
        guard index < stack.count else { return }
        for element in stack[index...] where element.traits.contains(.sectioning) { sectioning -= 1 }
        stack.removeSubrange(index...)
        if let skipped = skippedFrom, skipped >= index { skippedFrom = nil }
        if let heading, heading.element >= index {
            finishHeading(heading.start)
            self.heading = nil
        }
    }

    /// The end tags HTML implies when `name` starts: a block closes a `p`, an `li` the previous
    /// `li`, and so on; a body element closes `head`.
    private mutating func closeImpliedElements(before name: String, _ traits: ElementTraits) {
        guard let top = stack.last?.traits.impliedEnd, top != .none else { return }
        let next = traits.impliedEnd
        switch top {
        case .paragraph:
            if traits.contains(.block), !traits.contains(.void) { pop(to: stack.count - 1) }
        case .listItem, .definition, .option, .row:
            if next == top { pop(to: stack.count - 1) }
        case .cell:
            if next == .cell || next == .row { pop(to: stack.count - 1) }
            if next == .row, stack.last?.traits.impliedEnd == .row { pop(to: stack.count - 1) }
        case .head:
            if !traits.contains(.headContent) { pop(to: stack.count - 1) }
        case .none:
            break
        }
    }

    /// Whether the element `tag` starts is left out with its contents.
    private func isSkipped(_ tag: HTMLTag, _ traits: ElementTraits) -> Bool {
        if traits.contains(.skipped) { return true }
        if traits.contains(.chrome), sectioning == 0 { return true }
        var hasOpen = false
        for attribute in tag.attributes {
            // Compare lengths first: most attributes (`href`, `id`, `title`) are none of these.
            let name = attribute.name
            switch name.utf8.count {
            case 4:
                if name == "role", ElementTraits.value(attribute.value, holdsOneOf: ElementTraits.chromeRoles) {
                    return true
                }
                if name == "open" { hasOpen = true }
            case 5:
                if name == "class" {
                    let chrome: [StaticString] =
                        tag.name == "div"
                        ? ElementTraits.sphinxDivClasses
                        : tag.name == "a" ? ElementTraits.sphinxLinkClasses : []
                    if !chrome.isEmpty, ElementTraits.value(attribute.value, holdsOneOf: chrome) { return true }
                } else if name == "style" {
                    let style = CaseFolding.fold(attribute.value).filter { $0 != " " && $0 != "\t" && $0 != "\n" }
                    if style.contains("display:none") || style.contains("visibility:hidden") { return true }
                }
            case 6:
                if name == "hidden", CaseFolding.fold(attribute.value) != "until-found" { return true }
            case 11:
                if name == "aria-hidden", TextBuffer.trimmed(CaseFolding.fold(attribute.value)) == "true" {
                    return true
                }
            default:
                break
            }
        }
        return tag.name == "dialog" && !hasOpen
    }

    /// Reads the encoding from `<meta charset=…>` or `<meta http-equiv=content-type content=…charset=…>`.
    private mutating func readCharset(_ tag: HTMLTag) {
        var label = tag.value("charset")
        if label == nil, let content = tag.value("content").map(CaseFolding.fold),
            let range = content.firstRange(of: "charset=")
        {
            label = String(content[range.upperBound...].prefix { $0 != ";" && $0 != "\"" && $0 != "'" })
        }
        guard let label else { return }
        text.encoding = TextBuffer.Encoding(label: label)
        charsetKnown = true
    }

    /// Keeps the text written since `start` as a heading.
    private mutating func finishHeading(_ start: Int) {
        guard headings.count < VisibleText.maxHeadings, start <= text.bytes.count else { return }
        var bytes = text.bytes[start...].drop { $0 == 0x20 || $0 == 0x0A }
        while let last = bytes.last, last == 0x20 || last == 0x0A { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { return }
        if bytes.count > VisibleText.maxHeadingBytes {
            var end = bytes.startIndex + VisibleText.maxHeadingBytes
            while end > bytes.startIndex, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            bytes = bytes[..<end]
        }
        headings.append(String(decoding: bytes, as: UTF8.self))
    }
}

extension VisibleText {
    /// ``of(html:charset:)`` by ``TokenVisibleTextReader``: what it gave before the in-place scanner.
    @_spi(Differential) public static func ofByTokens(html: [UInt8], charset: String?) -> PageText {
        if let utf16 = transcodedUTF16(html) { return ofByTokens(html: utf16, charset: "utf-8") }
        var reader = TokenVisibleTextReader(
            html, encoding: TextBuffer.Encoding(label: charset), charsetKnown: charset != nil)
        return reader.read()
    }
}
