import WebArcHTML

/// One pass over an HTML page's tokens that gathers its visible text (see ``VisibleText``).
///
/// Tags are read in place by ``TagScanner``: names are compared by their bytes and attribute
/// values read where they are, so no string or array is made per tag.
struct VisibleTextReader {
    private struct OpenElement {
        var name: ScannedName
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

    /// Whether text was left out for the limit.
    var isCut: Bool { text.isFull }

    mutating func read() -> PageText {
        read(every: Int.max) { _ in true }
    }

    /// ``read()``, calling `progress` with the text gathered so far each time it has grown by
    /// `step` bytes since the last call: the walk stops, with the text so far, when `progress`
    /// returns false (a snippet that has what it needs reads no further).
    mutating func read(every step: Int, progress: ([UInt8]) -> Bool) -> PageText {
        var nextProgress = step
        _ = walk(from: VisibleText.hasUTF8Mark(html) ? 3 : 0, isComplete: true, step, &nextProgress, progress)
        return finish()
    }

    /// ``read(every:progress:)`` of a page that comes in parts: the reader's page is its first
    /// part, `more` gives the next one (nil at the end), and is called only when the walk has
    /// used what came before. The walk resumes where it paused, at the start of a token that the
    /// part read so far might have cut.
    mutating func read(
        every step: Int, more: () throws -> [UInt8]?, progress: ([UInt8]) -> Bool
    ) rethrows -> PageText {
        var isComplete = false
        while html.count < 3, !isComplete {
            if let part = try more() { html += part } else { isComplete = true }
        }
        var nextProgress = step
        var start = VisibleText.hasUTF8Mark(html) ? 3 : 0
        while true {
            guard let resume = walk(from: start, isComplete: isComplete, step, &nextProgress, progress) else { break }
            start = resume
            if let part = try more() { html += part } else { isComplete = true }
        }
        return finish()
    }

    /// How far past a token the tokenizer may have looked to end it (for `</script` and the
    /// like): a token that ends closer than this to the end of a part is read again with the next.
    private static let lookahead = 64

    /// Walks the tokens of ``html`` from `start`; nil when the walk is over (the page's end, the
    /// limit, or `progress` said to stop), else where to resume once more of the page is there.
    private mutating func walk(
        from start: Int, isComplete: Bool, _ step: Int, _ nextProgress: inout Int, _ progress: ([UInt8]) -> Bool
    ) -> Int? {
        // A local copy of the array (not of its bytes), released before the next part is appended.
        let html = self.html
        let safeEnd = isComplete ? Int.max : html.count - Self.lookahead
        return html.withUnsafeBufferPointer { bytes -> Int? in
            var scanner = TagScanner(bytes, in: start..<bytes.count)
            if isComplete {
                // The whole page is there: no token is read again, so none is kept aside.
                while let kind = scanner.next() {
                    guard follow(kind, scanner, bytes, step, &nextProgress, progress) else { return nil }
                }
                return nil
            }
            while var kind = scanner.next() {
                if scanner.range.upperBound > safeEnd { return scanner.range.lowerBound }
                // A raw-text element's start tag and its contents go together: the scanner
                // cannot resume between them.
                var contents: (kind: TagScanner.Kind, scanner: TagScanner)?
                if kind == .startTag, TagScanner.isRawText(scanner.name) {
                    var ahead = scanner
                    guard let following = ahead.next(), ahead.range.upperBound <= safeEnd else {
                        return scanner.range.lowerBound
                    }
                    contents = (following, ahead)
                }
                while true {
                    guard follow(kind, scanner, bytes, step, &nextProgress, progress) else { return nil }
                    guard let next = contents else { break }
                    (kind, scanner) = next
                    contents = nil
                }
            }
            return html.count
        }
    }

    /// Follows the token `scanner` has just read, then reports progress; false when the walk is
    /// over (the limit, or `progress` said to stop).
    @inline(__always)
    private mutating func follow(
        _ kind: TagScanner.Kind, _ scanner: TagScanner, _ bytes: UnsafeBufferPointer<UInt8>, _ step: Int,
        _ nextProgress: inout Int, _ progress: ([UInt8]) -> Bool
    ) -> Bool {
        take(kind, scanner, bytes)
        if text.isFull { return false }
        if text.bytes.count >= nextProgress {
            nextProgress = text.bytes.count + step
            if !progress(text.bytes) { return false }
        }
        return true
    }

    /// Follows the token `scanner` has just read.
    private mutating func take(_ kind: TagScanner.Kind, _ scanner: TagScanner, _ bytes: UnsafeBufferPointer<UInt8>) {
        switch kind {
        case .text:
            if skippedFrom == nil { text.append(bytes, scanner.range) }
        case .rawText:
            if scanner.name.is(TagScanner.titleKey, count: 5), title == nil, !isInsideSVG() {
                title = readTitle(bytes, scanner.range)
            }
        case .startTag:
            start(scanner, bytes)
        case .endTag:
            end(scanner.name, bytes)
        case .comment:
            break
        }
    }

    private mutating func finish() -> PageText {
        if let heading { finishHeading(heading.start) }
        return PageText(title: title ?? "", text: text.text, headings: headings)
    }

    private static let svgKey = ScannedName.key("svg")

    private func isInsideSVG() -> Bool {
        stack.contains { $0.name.is(Self.svgKey, count: 3) }
    }

    private func readTitle(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        var title = TextBuffer(limit: VisibleText.maxTitleBytes, encoding: text.encoding, reserve: range.count)
        title.append(bytes, range)
        return title.text
    }

    private mutating func start(_ tag: TagScanner, _ bytes: UnsafeBufferPointer<UInt8>) {
        let name = tag.name
        let traits = ElementTraits.of(name, bytes)
        closeImpliedElements(traits)
        let skipping = skippedFrom != nil
        if traits.contains(.void) || tag.isSelfClosing {
            if !skipping, traits.contains(.block) { text.separate(block: true) }
            if name.is(Self.metaKey, count: 4), !charsetKnown, text.bytes.isEmpty { readCharset(tag, bytes) }
            return
        }
        guard stack.count < Self.maxDepth else { return }
        stack.append(OpenElement(name: name, traits: traits))
        if traits.contains(.sectioning) { sectioning += 1 }
        guard !skipping else { return }
        if isSkipped(tag, traits, bytes) {
            skippedFrom = stack.count - 1
        } else {
            if traits.contains(.block) { text.separate(block: true) }
            if traits.contains(.heading) {
                if let heading { finishHeading(heading.start) }
                heading = (stack.count - 1, text.bytes.count)
            }
        }
    }

    private mutating func end(_ name: ScannedName, _ bytes: UnsafeBufferPointer<UInt8>) {
        let traits = ElementTraits.of(name, bytes)
        let reach = Swift.max(0, stack.count - Self.endTagReach)
        var index = stack.count - 1
        while index >= reach {
            if stack[index].name.isSame(as: name, bytes) {
                pop(to: index)
                break
            }
            index -= 1
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

    /// The end tags HTML implies when an element of `traits` starts: a block closes a `p`, an `li` the previous
    /// `li`, and so on; a body element closes `head`.
    private mutating func closeImpliedElements(_ traits: ElementTraits) {
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

    private static let metaKey = ScannedName.key("meta")
    private static let divKey = ScannedName.key("div")
    private static let aKey = ScannedName.key("a")
    private static let dialogKey = ScannedName.key("dialog")
    private static let roleKey = ScannedName.key("role")
    private static let openKey = ScannedName.key("open")
    private static let classKey = ScannedName.key("class")
    private static let styleKey = ScannedName.key("style")
    private static let hiddenKey = ScannedName.key("hidden")
    private static let charsetKey = ScannedName.key("charset")
    private static let contentKey = ScannedName.key("content")
    /// `aria-hid`: `aria-hidden` is the only name of eleven bytes that matters.
    private static let ariaHiddenKey = ScannedName.key("aria-hid")

    /// Whether the element `tag` starts is left out with its contents.
    private func isSkipped(_ tag: TagScanner, _ traits: ElementTraits, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if traits.contains(.skipped) { return true }
        if traits.contains(.chrome), sectioning == 0 { return true }
        var hasOpen = false
        for attribute in tag.attributes {
            // Compare lengths first: most attributes (`href`, `id`, `title`) are none of these.
            let name = attribute.name
            let value = AttributeValue(bytes, attribute.value)
            switch name.count {
            case 4:
                if name.is(Self.roleKey, count: 4), value.holdsOneOf(ElementTraits.chromeRoles) { return true }
                if name.is(Self.openKey, count: 4) { hasOpen = true }
            case 5:
                if name.is(Self.classKey, count: 5) {
                    let chrome: [StaticString] =
                        tag.name.is(Self.divKey, count: 3)
                        ? ElementTraits.sphinxDivClasses
                        : tag.name.is(Self.aKey, count: 1) ? ElementTraits.sphinxLinkClasses : []
                    if !chrome.isEmpty, value.holdsOneOf(chrome) { return true }
                } else if name.is(Self.styleKey, count: 5), value.hidesByStyle() {
                    return true
                }
            case 6:
                if name.is(Self.hiddenKey, count: 6), !value.equalsFolded("until-found") { return true }
            case 11:
                if name.is(Self.ariaHiddenKey, count: 11), isNamed("aria-hidden", name, bytes),
                    value.isTrueWhenTrimmed()
                {
                    return true
                }
            default:
                break
            }
        }
        return tag.name.is(Self.dialogKey, count: 6) && !hasOpen
    }

    /// Whether `name` (an attribute's, whose first eight bytes are known to match) is the ASCII `expected`.
    private func isNamed(_ expected: StaticString, _ name: ScannedName, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.isASCII, name.count == expected.utf8CodeUnitCount else { return false }
        for offset in 8..<name.count
        where ASCIIByte.lowercased(bytes[name.start + offset]) != expected.utf8Start[offset] {
            return false
        }
        return true
    }

    /// Reads the encoding from `<meta charset=…>` or `<meta http-equiv=content-type content=…charset=…>`.
    private mutating func readCharset(_ tag: TagScanner, _ bytes: UnsafeBufferPointer<UInt8>) {
        func value(_ key: UInt64, _ count: Int) -> String? {
            tag.attributes.first { $0.name.is(key, count: count) }.map { AttributeValue(bytes, $0.value).string }
        }
        var label = value(Self.charsetKey, 7)
        if label == nil, let content = value(Self.contentKey, 7).map(CaseFolding.fold),
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
