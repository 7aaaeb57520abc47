extension Verification {
    /// `objects`: the metadata object and every record tree object against §7 (layout, known
    /// fields' types and values, required keys), and the classes allowed in the record tree.
    func checkObjects() {
        let layered = reader.trailer.requiredFeatures.contains(.layer)
        if metadataReadable {
            do {
                if try !reader.metadata.bases.isEmpty && !layered {
                    add("objects", WebArcError.corruptIndex(page: reader.trailer.metadata.offset, position: nil, reason: "Archive.bases in an archive without required feature bit 0"))
                }
            } catch {
                add("objects", error)
            }
        }
        forEachRecordLeaf { leaf, first in
            for index in leaf.entries.indices {
                let record = UInt32(clamping: first + index)
                do {
                    let object = try leaf.object(index)
                    switch try RecordObjects.parse(object) {
                    case .record(let parsed):
                        report.records += 1
                        if parsed.isTombstone && !layered {
                            add("objects", object.corrupt("a tombstone in an archive without required feature bit 0"), record: record, url: parsed.request.url)
                        }
                    case .other(let name):
                        add("objects", object.corrupt("a \(name) is not a record"), record: record)
                    case .unknown:
                        break
                    }
                } catch {
                    add("objects", error, record: record)
                }
            }
        }
    }

    /// `references`: every response's body is in its leaf and in the body tree, with the length its
    /// `bodyLength` says; every body entry of a leaf is named by one of its responses.
    func checkReferences() {
        forEachRecordLeaf { leaf, first in
            var copies: [BodyReference: BodyEntry] = [:]
            for body in leaf.bodies { copies[body.reference] = body }
            var named = Set<BodyReference>()
            var unparsed = false
            for index in leaf.entries.indices {
                guard let (object, parsed) = parsed(leaf, index) else {
                    unparsed = true
                    continue
                }
                guard case .record(.response(let response)) = parsed else { continue }
                let record = UInt32(clamping: first + index)
                let url = response.request.url
                named.insert(response.body)
                let copy = copies[response.body]
                if copy == nil {
                    add("references", WebArcError.bodyNotFound(body: response.body, page: leaf.page), record: record, url: url)
                }
                if let bodyIndex, bodyIndex[response.body] == nil {
                    add("references", WebArcError.bodyNotFound(body: response.body, page: leaf.page), record: record, url: url)
                }
                if let length = copy?.length ?? bodyIndex?[response.body]?.length, length != response.bodyLength {
                    let position = try? object.field("bodyLength", type: FieldType.uint)?.position
                    add("references", corrupt(leaf.page, position ?? object.position, "bodyLength \(response.bodyLength), but body \(response.body) holds \(length) bytes"),
                        record: record, url: url)
                }
            }
            guard !unparsed else { return }
            var reported = Set<BodyReference>()
            for body in leaf.bodies where !named.contains(body.reference) && reported.insert(body.reference).inserted {
                add("references", corrupt(leaf.page, body.origin.position, "body entry \(body.reference) is named by no response"))
            }
        }
    }

    /// `redirects`: statuses allowed, targets absolute; a target the archive does not hold is a
    /// warning.
    func checkRedirects() {
        forEachRecordLeaf { leaf, first in
            for index in leaf.entries.indices {
                guard let (object, parsed) = parsed(leaf, index), case .record(.redirect(let redirect)) = parsed else { continue }
                let record = UInt32(clamping: first + index)
                let url = redirect.request.url
                if !RedirectRecord.allowedStatuses.contains(redirect.status) {
                    let position = try? object.field("status", type: FieldType.uint)?.position
                    add("redirects", corrupt(leaf.page, position ?? object.position, "redirect status \(redirect.status) is not 301, 302, 303, 307 or 308"), record: record, url: url)
                }
                guard let key = try? URLKey.key(method: "GET", url: redirect.target) else {
                    let position = try? object.field("target", type: FieldType.string)?.position
                    add("redirects", corrupt(leaf.page, position ?? object.position, "redirect target \"\(redirect.target)\" is not an absolute URL"), record: record, url: url)
                    continue
                }
                if (try? reader.lookup(key: key)) == nil {
                    warn("redirects", code: "redirect-target-missing", "target \(redirect.target) is not in the archive", record: record, url: url)
                }
            }
        }
    }

    /// For each body in `bodies`, the first record (in key order) whose response names it, so that
    /// a damaged body is reported with a record and URL a person can act on.
    func firstUsers(of bodies: Set<BodyReference>) -> [BodyReference: (record: UInt32, url: String)] {
        var found: [BodyReference: (record: UInt32, url: String)] = [:]
        guard !bodies.isEmpty else { return found }
        forEachRecordLeaf { leaf, first in
            for index in leaf.entries.indices where found.count < bodies.count {
                guard let (_, parsed) = parsed(leaf, index), case .record(.response(let response)) = parsed,
                    bodies.contains(response.body), found[response.body] == nil
                else { continue }
                found[response.body] = (UInt32(clamping: first + index), response.request.url)
            }
        }
        return found
    }
}
