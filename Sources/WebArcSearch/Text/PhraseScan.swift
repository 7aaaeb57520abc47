/// Finds phrases on a page as its visible text is read, for an index without positions: a page
/// shows a phrase when its title or its text holds the phrase's terms at consecutive positions
/// (a compound's parts follow it: "json dumps" is in `json.dumps`).
///
/// ```swift
/// let shown = PhraseScan.holds([["json", "dump"]], htmlParts: { chunks.next() }, charset: nil)
/// ```
enum PhraseScan {
    /// Whether `text`'s terms hold `phrase` at consecutive positions; a phrase of one term always
    /// holds, an empty one never.
    static func holds(_ phrase: [String], in text: String) -> Bool {
        guard phrase.count > 1 else { return !phrase.isEmpty }
        var scan = Scan([phrase])
        var text = text
        text.withUTF8 { scan.scan($0, to: $0.count) }
        return scan.isFound[0]
    }

    /// Whether the HTML page whose parts (a body's chunks) `next` gives shows every phrase of
    /// `phrases`, each in its title or its visible text (``VisibleText/of(html:charset:)``): the
    /// text is scanned as it is read, and the page is read no further once every phrase is found.
    ///
    /// - Throws: what `next` throws.
    static func holds(
        _ phrases: [[String]], htmlParts next: () throws -> [UInt8]?, charset: String?
    ) rethrows -> Bool {
        var first = try next() ?? []
        // A UTF-16 page is turned into UTF-8 whole.
        var reader: VisibleTextReader
        if first.count >= 2, (first[0], first[1]) == (0xFF, 0xFE) || (first[0], first[1]) == (0xFE, 0xFF) {
            while let part = try next() { first += part }
            reader = VisibleText.reader(html: first, charset: charset)
        } else {
            reader = VisibleTextReader(
                first, encoding: TextBuffer.Encoding(label: charset), charsetKnown: charset != nil)
        }
        first = []
        var scan = Scan(phrases)
        guard !scan.isFound.allSatisfy({ $0 }) else { return true }
        let page = try reader.read(every: 2048, more: next) { bytes in
            bytes.withUnsafeBufferPointer { text in
                // Only whole words: up to the last space or line break.
                var end = text.count
                while end > scan.scannedBytes, text[end - 1] != 0x20, text[end - 1] != 0x0A { end -= 1 }
                scan.scan(text, to: end)
                return !scan.isFound.allSatisfy { $0 }
            }
        }
        var text = page.text
        text.withUTF8 { scan.scan($0, to: $0.count) }
        return phrases.indices.allSatisfy { scan.isFound[$0] || holds(phrases[$0], in: page.title) }
    }

    /// The positions of the phrases' terms in a text read in parts, each ending at a word
    /// boundary (a space or a line break).
    private struct Scan {
        let phrases: [[String]]
        var isFound: [Bool]
        private var firstBytes = [Bool](repeating: false, count: 256)
        private var positions: [String: Set<Int>] = [:]
        /// The positions of each phrase's first term, in order.
        private var starts: [String: [Int]] = [:]
        private(set) var scannedBytes = 0
        private var scannedPositions = 0

        init(_ phrases: [[String]]) {
            self.phrases = phrases
            isFound = phrases.map { $0.count < 2 && !$0.isEmpty }
            for phrase in phrases {
                if let first = phrase.first { starts[first] = [] }
                for term in phrase {
                    positions[term] = []
                    if let byte = term.utf8.first { firstBytes[Int(byte)] = true }
                }
            }
        }

        /// Scans `text` from where the last scan ended to `end`.
        mutating func scan(_ text: UnsafeBufferPointer<UInt8>, to end: Int) {
            guard end > scannedBytes else { return }
            let base = scannedPositions
            var used = 0
            Analyzer.analyzeWhile(
                bytes: UnsafeBufferPointer(rebasing: text[scannedBytes..<end]), firstBytes: firstBytes
            ) { term in
                used = term.position + 1
                if !term.term.isEmpty, positions[term.term] != nil {
                    positions[term.term]!.insert(base + term.position)
                    starts[term.term]?.append(base + term.position)
                }
                return true
            }
            scannedBytes = end
            scannedPositions += used
            for (number, phrase) in phrases.enumerated() where !isFound[number] && !phrase.isEmpty {
                // Only starts whose phrase could end in this part are new: the last ones.
                for start in starts[phrase[0]]!.reversed() {
                    guard start + phrase.count > base else { break }
                    if phrase.indices.dropFirst().allSatisfy({ positions[phrase[$0]]!.contains(start + $0) }) {
                        isFound[number] = true
                        break
                    }
                }
            }
        }
    }
}
