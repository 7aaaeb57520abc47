extension Verification {
    /// `trees`: heights, key order within and across leaves, interior keys equal to their
    /// children's first keys, record copies of body entries equal to the body tree's, and counts
    /// equal to the trailer's (spec §8); record keys against their requests' canonical keys are
    /// checked with the other record checks (``checkKeys(_:_:_:)``), which parse the objects.
    func checkTrees() {
        structure(reader.trailer.recordRoot, .records)
        structure(reader.trailer.bodyRoot, .bodies)
        checkRecordLeafOrder()
        checkBodyLeaves()
        if let bodyIndex {
            forEachRecordLeaf { leaf, _ in
                for (index, body) in leaf.bodies.enumerated() {
                    if let entry = bodyIndex[body.reference], entry.entry != SHA256Hash.of(leaf.encodedBody(index)) {
                        add(
                            "trees",
                            corrupt(
                                leaf.page, body.origin.position,
                                "body entry \(body.reference) differs from the body tree's"))
                    }
                }
            }
        }
        let trailer = reader.trailer
        let trailerOffset = reader.trailerOffset
        if !incomplete.contains(.records) {
            var count: UInt64 = 0
            forEachRecordLeaf { leaf, _ in count += UInt64(leaf.entries.count) }
            if count != trailer.recordCount {
                add(
                    "trees",
                    WebArcError.corruptIndex(
                        page: trailerOffset + 48, position: nil,
                        reason: "recordCount \(trailer.recordCount), the record tree holds \(count)"))
            }
        }
        if bodyIndex != nil, bodyEntryCount != trailer.bodyCount {
            add(
                "trees",
                WebArcError.corruptIndex(
                    page: trailerOffset + 56, position: nil,
                    reason: "bodyCount \(trailer.bodyCount), the body tree holds \(bodyEntryCount)"))
        }
    }

    /// `trees`: each record's key equals its request's canonical key.
    func checkKeys(_ leaf: RecordLeaf, _ first: Int, _ entries: [RecordEntry]) {
        for (index, entry) in entries.enumerated() {
            guard case .success((_, .record(let record))) = entry else { continue }
            let key = try? URLKey.key(method: record.request.method, url: record.request.url)
            if key.map({ Array($0.utf8) }) != Array(leaf.key(index)) {
                add(
                    "trees",
                    corrupt(
                        leaf.page, leaf.entries[index].position,
                        "key \"\(String(decoding: leaf.key(index), as: UTF8.self))\" is not its request's canonical key \(key.map { "\"\($0)\"" } ?? "(none)")"
                    ),
                    record: UInt32(clamping: first + index), url: record.request.url)
            }
        }
    }

    func corrupt(_ page: UInt64, _ position: Int?, _ reason: String) -> WebArcError {
        .corruptIndex(page: page, position: position, reason: reason)
    }

    /// Interior pages: keys strictly ascending, child heights one less, each key its child's first.
    private func structure(_ reference: PageReference, _ tree: Page.Tree) {
        guard case .interior(let node)? = try? reader.page(reference, .node(tree)) else { return }
        for index in node.keys.indices.dropLast() where !KeyOrder.less(node.keys[index], node.keys[index + 1]) {
            add("trees", corrupt(reference.offset, node.childPositions[index + 1], "interior keys out of order"))
        }
        for (index, child) in node.children.enumerated() {
            guard child.height &+ 1 == reference.height else {
                add(
                    "trees",
                    corrupt(
                        reference.offset, node.childPositions[index],
                        "child of height \(child.height) under height \(reference.height)"))
                continue
            }
            if let first = firstKey(child, tree), !first.elementsEqual(node.keys[index]) {
                add("trees", corrupt(reference.offset, node.childPositions[index], "key is not its child's first key"))
            }
            structure(child, tree)
        }
    }

    private func firstKey(_ reference: PageReference, _ tree: Page.Tree) -> [UInt8]? {
        switch try? reader.page(reference, .node(tree)) {
        case .interior(let node)?: node.keys.first.map(Array.init)
        case .recordLeaf(let leaf)?: leaf.entries.isEmpty ? nil : Array(leaf.key(0))
        case .bodyLeaf(let leaf)?: leaf.entries.first?.reference.treeKey
        default: nil
        }
    }

    /// Record leaves: keys ascending inside a leaf (equal keys allowed), each leaf's first key after
    /// the previous leaf's last, body copies strictly ascending.
    private func checkRecordLeafOrder() {
        var previous: [UInt8]?
        forEachRecordLeaf { leaf, _ in
            let count = leaf.entries.count
            if (0..<max(count - 1, 0)).contains(where: { KeyOrder.less(leaf.key($0 + 1), leaf.key($0)) }) {
                add("trees", corrupt(leaf.page, nil, "record keys out of order"))
            }
            if count > 0, let previous, !KeyOrder.less(previous, leaf.key(0)) {
                add(
                    "trees",
                    corrupt(leaf.page, leaf.entries[0].position, "first key not after the previous leaf's last"))
            }
            if count > 0 { previous = Array(leaf.key(count - 1)) }
            if (0..<max(leaf.bodies.count - 1, 0)).contains(where: {
                !(leaf.bodies[$0].reference < leaf.bodies[$0 + 1].reference)
            }) {
                add("trees", corrupt(leaf.page, nil, "body entries out of order"))
            }
        }
    }

    /// Body leaves: references strictly ascending within and across leaves; the body index that
    /// `references` and the copy check use, when the whole tree was read.
    private func checkBodyLeaves() {
        var index: [BodyReference: (length: UInt64, entry: SHA256Hash)] = [:]
        var previous: BodyReference?
        var count: UInt64 = 0
        forEachBodyLeaf { leaf, reference in
            let entries = leaf.entries
            let inside = (0..<max(entries.count - 1, 0)).contains {
                !(entries[$0].reference < entries[$0 + 1].reference)
            }
            if inside || (entries.first.map { first in previous.map { !($0 < first.reference) } ?? false } ?? false) {
                add("trees", corrupt(reference.offset, nil, "body keys out of order"))
            }
            if let last = entries.last { previous = last.reference }
            for (position, entry) in entries.enumerated() {
                index[entry.reference] = (entry.length, SHA256Hash.of(leaf.encoded(position)))
                walkedTotals.add(body: entry)
            }
            count += UInt64(entries.count)
        }
        bodyEntryCount = count
        bodyIndex = incomplete.contains(.bodies) ? nil : index
    }
}
