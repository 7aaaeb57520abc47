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
        compareBodyCopies()
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
        if bodyTreeRead, bodyEntryCount != trailer.bodyCount {
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

    /// Body leaves: references strictly ascending within and across leaves.
    private func checkBodyLeaves() {
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
            for entry in entries { walkedTotals.add(body: entry) }
            count += UInt64(entries.count)
        }
        bodyEntryCount = count
    }

    /// Whether the whole body tree was read (then `references` and the copy check use it).
    var bodyTreeRead: Bool { bodyIndex != nil || missingFromBodyTree != nil }

    /// `trees`: each record leaf's copy of a body entry equals the body tree's. With sound trees,
    /// the copies are sorted by reference (``SpilledSort``) and merged with the body tree's
    /// entries, which are in that order, so memory is bounded; what is kept is the set of copies
    /// the tree lacks. Trees with a problem (keys out of order, a wrong interior key) are compared
    /// through an index of the whole body tree in memory, as the merge cannot rely on their order.
    private func compareBodyCopies() {
        guard !incomplete.contains(.bodies) else { return }
        if !hasProblems(in: "trees"), let missing = try? mergeBodyCopies() {
            missingFromBodyTree = missing
            return
        }
        var index: [BodyReference: (length: UInt64, entry: SHA256Hash)] = [:]
        forEachBodyLeaf { leaf, _ in
            for (position, entry) in leaf.entries.enumerated() {
                index[entry.reference] = (entry.length, SHA256Hash.of(leaf.encoded(position)))
            }
        }
        bodyIndex = index
        forEachRecordLeaf { leaf, _ in
            for (position, body) in leaf.bodies.enumerated() {
                if let entry = index[body.reference], entry.entry != SHA256Hash.of(leaf.encodedBody(position)) {
                    differs(leaf.page, body)
                }
            }
        }
    }

    private func differs(_ page: UInt64, _ body: BodyEntry) {
        add("trees", corrupt(page, body.origin.position, "body entry \(body.reference) differs from the body tree's"))
    }

    /// The copy check by merge (see ``compareBodyCopies()``): the references of the copies the
    /// body tree lacks.
    ///
    /// - Throws: `io` when the temporary file of the sort fails (the caller then compares in memory).
    private func mergeBodyCopies() throws -> Set<BodyReference> {
        let copies = SpilledSort<BodyCopy>(prefix: "webarc-verify-copies")
        try forEachRecordLeaf { leaf, _ in
            for (index, body) in leaf.bodies.enumerated() {
                try copies.append(
                    BodyCopy(
                        reference: body.reference, hash: SHA256Hash.of(leaf.encodedBody(index)), page: leaf.page,
                        position: body.origin.position))
            }
        }
        var sorted = try copies.sorted()
        var copy = try sorted.next()
        var missing = Set<BodyReference>()
        var found: [BodyCopy] = []
        try forEachBodyLeaf { leaf, _ in
            for (position, entry) in leaf.entries.enumerated() {
                while let current = copy, current.reference < entry.reference {
                    missing.insert(current.reference)
                    copy = try sorted.next()
                }
                guard copy?.reference == entry.reference else { continue }
                let hash = SHA256Hash.of(leaf.encoded(position))
                while let current = copy, current.reference == entry.reference {
                    if current.hash != hash { found.append(current) }
                    copy = try sorted.next()
                }
            }
        }
        while let current = copy {
            missing.insert(current.reference)
            copy = try sorted.next()
        }
        // Added once the merge is through, so that a failed merge leaves no problem behind.
        for copy in found {
            add(
                "trees",
                corrupt(copy.page, copy.position, "body entry \(copy.reference) differs from the body tree's"))
        }
        return missing
    }

    /// A record leaf's copy of a body entry, for the merge with the body tree: its reference, the
    /// SHA-256 of its bytes, and where it is (page, position in the decoded page).
    struct BodyCopy: SpilledSortElement {
        var reference: BodyReference
        var hash: SHA256Hash
        var page: UInt64
        var position: Int

        static func precedes(_ lhs: BodyCopy, _ rhs: BodyCopy) -> Bool {
            lhs.reference != rhs.reference
                ? lhs.reference < rhs.reference : (lhs.page, lhs.position) < (rhs.page, rhs.position)
        }

        func encode(into writer: inout ByteWriter) {
            writer.write(bytes: reference.digest.bytes)
            writer.write(reference.variant)
            writer.write(bytes: hash.bytes)
            writer.write(page)
            writer.write(UInt64(position))
        }

        static func decode(_ reader: inout ByteReader) throws -> BodyCopy {
            let reference = BodyReference(
                digest: BodyDigest(sixteen: try reader.readBytes(16)), variant: try reader.readUInt32())
            return BodyCopy(
                reference: reference, hash: try SHA256Hash(parsing: &reader), page: try reader.readUInt64(),
                position: Int(try reader.readUInt64()))
        }

        var heldSize: Int { 96 }
    }

    /// Whether the body tree lacks `reference`, a response's body (`copy`: its leaf's copy of the
    /// entry); false when the tree was not read whole.
    func bodyTreeLacks(_ reference: BodyReference, copy: BodyEntry?) -> Bool {
        if let bodyIndex { return bodyIndex[reference] == nil }
        guard let missingFromBodyTree else { return false }
        if copy != nil { return missingFromBodyTree.contains(reference) }
        return bodyTreeEntry(reference) == nil
    }

    /// The length of `reference`'s entry in the body tree, when it was read whole and holds it.
    func bodyTreeLength(_ reference: BodyReference) -> UInt64? {
        if let bodyIndex { return bodyIndex[reference]?.length }
        guard missingFromBodyTree != nil else { return nil }
        return bodyTreeEntry(reference)?.length
    }

    /// `reference`'s entry in a sound body tree, looked up (for a response whose leaf lacks a copy).
    private func bodyTreeEntry(_ reference: BodyReference) -> BodyEntry? {
        guard case .bodyLeaf(let leaf)? = try? reader.leaf(holding: reference.treeKey, in: .bodies)?.0 else {
            return nil
        }
        return leaf.entry(reference)
    }
}
