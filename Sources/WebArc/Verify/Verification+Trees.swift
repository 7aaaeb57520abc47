extension Verification {
    /// The steps of `trees`, in the order a report lists the problems one page has (a report sorts
    /// each check's problems by offset): interior pages of the record tree then the body tree, key
    /// order of record leaves then body leaves, body copies, counts, record keys. The walk finds
    /// them in another order, both trees at once.
    enum TreesStep: Int {
        case recordStructure = 1
        case bodyStructure
        case recordOrder
        case bodyOrder
        case copies
        case counts
        case keys

        init(structureOf tree: Page.Tree) { self = tree == .records ? .recordStructure : .bodyStructure }
    }

    /// Adds a `trees` problem found in `step`.
    func addTrees(_ error: WebArcError, _ step: TreesStep, record: UInt32? = nil, url: String? = nil) {
        add("trees", error, record: record, url: url, step: step.rawValue)
    }

    /// Where the walk found a child: its parent page, the position of its reference there, and the
    /// key it is named by (which must be its first key).
    struct ChildName {
        let page: UInt64
        let position: Int
        let key: ArraySlice<UInt8>
        let tree: Page.Tree
    }

    /// `trees`, for an interior page: keys strictly ascending.
    func checkInterior(_ node: InteriorPage, _ reference: PageReference, _ tree: Page.Tree) {
        for index in node.keys.indices.dropLast() where !KeyOrder.less(node.keys[index], node.keys[index + 1]) {
            addTrees(
                corrupt(reference.offset, node.childPositions[index + 1], "interior keys out of order"),
                TreesStep(structureOf: tree))
        }
    }

    /// `trees`, for child `index` of an interior page, which is not one level below it.
    func wrongHeight(_ node: InteriorPage, _ index: Int, _ reference: PageReference, _ tree: Page.Tree) {
        addTrees(
            corrupt(
                reference.offset, node.childPositions[index],
                "child of height \(node.children[index].height) under height \(reference.height)"),
            TreesStep(structureOf: tree))
    }

    /// `trees`, for a child page: its first key is the key its parent names it by.
    func checkFirstKey(_ page: Page, _ parent: ChildName) {
        let first: [UInt8]? =
            switch page {
            case .interior(let node): node.keys.first.map(Array.init)
            case .recordLeaf(let leaf): leaf.entries.isEmpty ? nil : Array(leaf.key(0))
            case .bodyLeaf(let leaf): leaf.entries.first?.reference.treeKey
            default: nil
            }
        if let first, !first.elementsEqual(parent.key) {
            addTrees(
                corrupt(parent.page, parent.position, "key is not its child's first key"),
                TreesStep(structureOf: parent.tree))
        }
    }

    /// `trees`, for a record leaf the walk read: keys ascending inside it (equal keys allowed), its
    /// first key after the previous leaf's last, body copies strictly ascending; its copies are kept
    /// for ``finishTrees()`` and its records counted.
    func checkRecordLeafOrder(_ leaf: RecordLeaf) {
        let count = leaf.entries.count
        if (0..<max(count - 1, 0)).contains(where: { KeyOrder.less(leaf.key($0 + 1), leaf.key($0)) }) {
            addTrees(corrupt(leaf.page, nil, "record keys out of order"), .recordOrder)
        }
        if count > 0, let previous = previousRecordKey, !KeyOrder.less(previous, leaf.key(0)) {
            addTrees(
                corrupt(leaf.page, leaf.entries[0].position, "first key not after the previous leaf's last"),
                .recordOrder)
        }
        if count > 0 { previousRecordKey = Array(leaf.key(count - 1)) }
        if (0..<max(leaf.bodyCount - 1, 0)).contains(where: {
            !(leaf.bodyReference(at: $0) < leaf.bodyReference(at: $0 + 1))
        }) {
            addTrees(corrupt(leaf.page, nil, "body entries out of order"), .recordOrder)
        }
        recordEntryCount += UInt64(count)
        for index in leaf.bodyPositions.indices {
            keep(
                BodyCopy(
                    reference: leaf.bodyReference(at: index), hash: SHA256Hash.of(leaf.encodedBody(index)),
                    page: leaf.page, position: Int(leaf.bodyPositions[index])), in: bodyCopies)
        }
    }

    /// `trees`, for a body leaf the walk read: references strictly ascending within and across
    /// leaves; its entries are kept for ``finishTrees()`` and counted.
    func visitBodyLeaf(_ leaf: BodyLeaf, _ reference: PageReference) {
        let entries = leaf.entries
        let inside = (0..<max(entries.count - 1, 0)).contains {
            !(entries[$0].reference < entries[$0 + 1].reference)
        }
        let previous = previousBodyReference
        if inside || (entries.first.map { first in previous.map { !($0 < first.reference) } ?? false } ?? false) {
            addTrees(corrupt(reference.offset, nil, "body keys out of order"), .bodyOrder)
        }
        if let last = entries.last { previousBodyReference = last.reference }
        for (position, entry) in entries.enumerated() {
            walkedTotals.add(body: entry)
            bodyTotals.bytes &+= entry.length
            keep(
                BodyCopy(
                    reference: entry.reference, hash: SHA256Hash.of(leaf.encoded(position)),
                    page: reference.offset, position: entry.origin.position), in: bodyTreeEntries)
        }
        bodyTotals.bodies += entries.count
        bodyEntryCount += UInt64(entries.count)
        queue(leaf, reference)
    }

    private func keep(_ copy: BodyCopy, in sort: SpilledSort<BodyCopy>) {
        guard bodyCopiesFailure == nil else { return }
        do { try sort.append(copy) } catch { bodyCopiesFailure = error }
    }

    /// `trees`, once the walk is through: the record leaves' copies of body entries against the
    /// body tree's, and the counts against the trailer's (spec §8).
    func finishTrees() {
        // The walk made the record checks as if every copy were in the body tree; see
        // ``finishRecords()``.
        missingFromBodyTree = nil
        compareBodyCopies()
        let trailer = reader.trailer
        let trailerOffset = reader.trailerOffset
        if !incomplete.contains(.records), recordEntryCount != trailer.recordCount {
            addTrees(
                WebArcError.corruptIndex(
                    page: trailerOffset + 48, position: nil,
                    reason: "recordCount \(trailer.recordCount), the record tree holds \(recordEntryCount)"),
                .counts)
        }
        if bodyTreeRead, bodyEntryCount != trailer.bodyCount {
            addTrees(
                WebArcError.corruptIndex(
                    page: trailerOffset + 56, position: nil,
                    reason: "bodyCount \(trailer.bodyCount), the body tree holds \(bodyEntryCount)"),
                .counts)
        }
    }

    /// `trees`: each record's key equals its request's canonical key.
    func checkKeys(_ leaf: RecordLeaf, _ first: Int, _ entries: [RecordEntry]) {
        for (index, entry) in entries.enumerated() {
            guard case .success((_, .record(let record))) = entry else { continue }
            let key = try? URLKey.key(method: record.request.method, url: record.request.url)
            if !(key.map { $0.utf8.elementsEqual(leaf.key(index)) } ?? false) {
                addTrees(
                    corrupt(
                        leaf.page, leaf.entries[index].position,
                        "key \"\(String(decoding: leaf.key(index), as: UTF8.self))\" is not its request's canonical key \(key.map { "\"\($0)\"" } ?? "(none)")"
                    ), .keys,
                    record: UInt32(clamping: first + index), url: record.request.url)
            }
        }
    }

    func corrupt(_ page: UInt64, _ position: Int?, _ reason: String) -> WebArcError {
        .corruptIndex(page: page, position: position, reason: reason)
    }

    /// Whether the whole body tree was read (then `references` and the copy check use it).
    var bodyTreeRead: Bool { bodyIndex != nil || missingFromBodyTree != nil }

    /// `trees`: each record leaf's copy of a body entry equals the body tree's. With sound trees,
    /// the copies and the body tree's entries the walk kept are sorted by reference
    /// (``SpilledSort``) and merged, so memory is bounded; what is kept is the set of copies the
    /// tree lacks. Trees with a problem (keys out of order, a wrong interior key) are compared
    /// through an index of the whole body tree in memory, as the merge cannot rely on their order.
    private func compareBodyCopies() {
        guard !incomplete.contains(.bodies) else { return }
        if !hasProblems(in: "trees", before: TreesStep.copies.rawValue), let missing = try? mergeBodyCopies() {
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
            for position in leaf.bodyPositions.indices {
                if let entry = index[leaf.bodyReference(at: position)],
                    entry.entry != SHA256Hash.of(leaf.encodedBody(position))
                {
                    differs(leaf.page, leaf.body(at: position))
                }
            }
        }
    }

    private func differs(_ page: UInt64, _ body: BodyEntry) {
        addTrees(
            corrupt(page, body.origin.position, "body entry \(body.reference) differs from the body tree's"), .copies)
    }

    /// The copy check by merge (see ``compareBodyCopies()``): the references of the copies the
    /// body tree lacks.
    ///
    /// - Throws: `io` when the temporary file of the sort fails (the caller then compares in memory).
    private func mergeBodyCopies() throws -> Set<BodyReference> {
        if let bodyCopiesFailure { throw bodyCopiesFailure }
        var sorted = try bodyCopies.sorted()
        var entries = try bodyTreeEntries.sorted()
        var copy = try sorted.next()
        var missing = Set<BodyReference>()
        var found: [BodyCopy] = []
        while let entry = try entries.next() {
            while let current = copy, current.reference < entry.reference {
                missing.insert(current.reference)
                copy = try sorted.next()
            }
            while let current = copy, current.reference == entry.reference {
                if current.hash != entry.hash { found.append(current) }
                copy = try sorted.next()
            }
        }
        while let current = copy {
            missing.insert(current.reference)
            copy = try sorted.next()
        }
        // Added once the merge is through, so that a failed merge leaves no problem behind.
        for copy in found {
            addTrees(
                corrupt(copy.page, copy.position, "body entry \(copy.reference) differs from the body tree's"),
                .copies)
        }
        return missing
    }

    /// A copy of a body entry, in a record leaf or the body tree, for the merge: its reference,
    /// the SHA-256 of its bytes, and where it is (page, position in the decoded page).
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
