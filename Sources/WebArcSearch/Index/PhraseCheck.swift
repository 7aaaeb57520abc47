/// Whether a page shows a phrase, for an index without positions (version 2, spec §17.4): its
/// title or its text holds the phrase's terms as consecutive analyzer tokens, as version 1's
/// positions say (a compound's parts follow it: "json dumps" is in `json.dumps`).
enum PhraseCheck {
    /// The most candidates a search checks in one layer for `limit` hits: each check reads a
    /// page's body, so a phrase of common words stops here rather than reading every page.
    static func candidateBudget(limit: Int) -> Int { max(50, limit) }

    /// Whether `page` shows every phrase of `phrases`, each in its title or in its text.
    static func holds(_ phrases: [[String]], in page: PageText) -> Bool {
        phrases.allSatisfy { holds($0, in: page.title) || holds($0, in: page.text) }
    }

    /// Whether `text`'s tokens hold `phrase` at consecutive positions.
    static func holds(_ phrase: [String], in text: String) -> Bool {
        // One term: its postings already said so.
        guard phrase.count > 1 else { return !phrase.isEmpty }
        var firstBytes = [Bool](repeating: false, count: 256)
        for term in phrase { if let byte = term.utf8.first { firstBytes[Int(byte)] = true } }
        // The recent positions of each term of the phrase (terms compared, not hashed); positions
        // never go down, so a phrase is found when its last term comes where the others already
        // stand before it.
        var positions = [[Int]](repeating: [], count: phrase.count)
        let last = phrase.count - 1
        var found = false
        Analyzer.analyzeWhile(text, firstBytes: firstBytes) { token in
            // A term whose first byte no phrase term has comes empty.
            guard !token.term.isEmpty else { return true }
            var isLast = false
            for (number, term) in phrase.enumerated() where term == token.term {
                // Only the last few positions can still start or continue the phrase.
                positions[number].removeAll { $0 < token.position - last }
                positions[number].append(token.position)
                isLast = isLast || number == last
            }
            if isLast {
                let start = token.position - last
                found = (0..<last).allSatisfy { positions[$0].contains(start + $0) }
            }
            return !found
        }
        return found
    }
}
