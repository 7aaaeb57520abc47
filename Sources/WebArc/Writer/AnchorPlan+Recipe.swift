extension AnchorPlan {
    /// The anchors a writer following `recipe` gives the bodies of `responses`, added in this order
    /// (each response's body takes the next position, spec Appendix C step 13): by each response's
    /// key and body length when the recipe's rule is keyed or local minimum, every *n*-th otherwise.
    /// What an apply (§13.1) and a refresh, which write an archive again by its recipe, share.
    ///
    /// - Throws: `badTarget` for a rule or a dictionary placement this version does not know
    ///   (``WriterRecipe/requireWritable()``), before anything is written; `badURL` for a response
    ///   whose URL has no key.
    package static func following(_ recipe: WriterRecipe, responses: [ResponseRecord?]) throws -> AnchorPlan {
        try recipe.requireWritable()
        // Anything but a response keeps the numbering and is no candidate.
        return try following(
            recipe,
            bodies: responses.map { response in
                guard let response else { return ([], 0) }
                return (Array(try response.request.canonicalKey().utf8), response.bodyLength)
            })
    }

    /// The anchors a writer following `recipe` gives bodies of these keys (`URLKey` bytes; empty:
    /// no response, no candidate) and lengths, in this order, as ``following(_:responses:)``
    /// does for the responses they are of.
    ///
    /// - Throws: `badTarget` for a rule or a dictionary placement this version does not know.
    static func following<Bodies: Sequence>(_ recipe: WriterRecipe, bodies: Bodies) throws -> AnchorPlan
    where Bodies.Element == (key: [UInt8], length: UInt64) {
        try recipe.requireWritable()
        let rule: KeyedRule
        switch recipe.anchors {
        case .everyNth, .unknown:
            return AnchorPlan(interval: recipe.dictionaryInterval)
        case .keyed: rule = .keyed
        case .localMinimum: rule = .localMinimum
        }
        return AnchorPlan(interval: recipe.dictionaryInterval, bodies: bodies, rule: rule)
    }
}
