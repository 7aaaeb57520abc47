extension ArchiveVerifier {
    /// Decodes every object and checks the lookup table against the records (spec §6, §7.2, §8
    /// checks `objects`, `lookup`, `references`, `redirects`).
    static func checkObjectsAndLookup(_ reader: ArchiveReader, _ report: inout VerificationReport) {
        report.checks += ["objects", "lookup", "references", "redirects"]
        var recordObjects = Set<UInt32>()
        var undecodable = Set<UInt32>()
        var requestObjects = Set<UInt32>()
        for id in 0..<UInt32(reader.objectCount) {
            do {
                let object = try reader.object(id)
                if id == 0 { _ = try reader.decodeMetadata() }
                switch object.className {
                case "Response", "Redirect": recordObjects.insert(id)
                case "Request": requestObjects.insert(id)
                default: break
                }
            } catch let error as WebArcError {
                report.add("objects", error, record: id)
                undecodable.insert(id)
            } catch {}
        }
        var seen = Set<UInt32>()
        var previousKey: [UInt8]?
        for index in 0..<reader.lookupTable.count {
            do {
                let (keyID, objectID) = try reader.lookupEntry(index)
                let key = try reader.string(keyID)
                let keyBytes = Array(key.utf8)
                let entryOffset = reader.lookupTable.offset(of: index)
                if let previousKey, keyBytes.lexicographicallyPrecedes(previousKey) {
                    report.add("lookup", .corruptIndex(section: "LKUP", offset: entryOffset, reason: "entry \(index) key \"\(key)\" is out of order"))
                }
                previousKey = keyBytes
                guard seen.insert(objectID).inserted else {
                    report.add("lookup", .corruptIndex(section: "LKUP", offset: entryOffset, reason: "record \(objectID) has two entries"), record: objectID)
                    continue
                }
                // An object that did not decode was reported under `objects`; its entry adds nothing.
                if undecodable.contains(objectID) { continue }
                guard recordObjects.contains(objectID), let record = try reader.record(objectID) else {
                    report.add("lookup", .corruptIndex(section: "LKUP", offset: entryOffset, reason: "entry \(index) names object \(objectID), not a response or redirect"))
                    continue
                }
                report.records += 1
                let url = record.request.url
                do {
                    let expected = try record.request.canonicalKey()
                    if expected != key {
                        report.add("lookup", .corruptIndex(section: "LKUP", offset: entryOffset, reason: "key \"\(key)\" should be \"\(expected)\""), record: objectID, url: url)
                    }
                } catch let error as WebArcError {
                    report.add("lookup", error, record: objectID, url: url)
                }
                try checkReferences(reader, record, objectID: objectID, report: &report)
            } catch let error as WebArcError {
                report.add("lookup", error)
            } catch {}
        }
        for missing in recordObjects.subtracting(seen).sorted() {
            report.add("lookup", .corruptIndex(section: "LKUP", offset: reader.lookupTable.section.offset, reason: "record \(missing) has no lookup entry"), record: missing)
        }
    }

    private static func checkReferences(
        _ reader: ArchiveReader, _ record: ArchiveRecord, objectID: UInt32, report: inout VerificationReport
    ) throws {
        let url = record.request.url
        switch record {
        case .response(let response):
            guard (100...599).contains(response.status) else {
                report.add("references", .corruptIndex(section: "OBJS", offset: fieldOffset(reader, objectID, "status"), reason: "status \(response.status) is not 100–599"), record: objectID, url: url)
                return
            }
            do {
                let body = try reader.bodyEntry(response.body)
                if body.length != response.bodyLength {
                    report.add("references", .corruptIndex(section: "OBJS", offset: fieldOffset(reader, objectID, "bodyLength"), reason: "bodyLength \(response.bodyLength) but body \(response.body) holds \(body.length) bytes"), record: objectID, url: url)
                }
            } catch let error as WebArcError {
                report.add("references", error, record: objectID, url: url)
            }
        case .redirect(let redirect):
            guard RedirectRecord.allowedStatuses.contains(redirect.status) else {
                report.add("redirects", .corruptIndex(section: "OBJS", offset: fieldOffset(reader, objectID, "status"), reason: "redirect status \(redirect.status)"), record: objectID, url: url)
                return
            }
            do {
                if try reader.lookup(method: "GET", url: redirect.target) == nil {
                    report.warn("redirects", code: "redirect-target-missing", "target \(redirect.target) is not in the archive", record: objectID, url: url)
                }
            } catch let error as WebArcError {
                report.add("redirects", error, record: objectID, url: url)
            }
        }
    }

    /// The absolute offset of field `key` of object `id` (its key), or of the object when the field
    /// cannot be found, so that a record-level problem still points at bytes in the file.
    private static func fieldOffset(_ reader: ArchiveReader, _ id: UInt32, _ key: String) -> UInt64 {
        guard let object = try? reader.object(id) else { return reader.objects.section.offset }
        return object.fields[key]?.offset ?? object.offset
    }
}
