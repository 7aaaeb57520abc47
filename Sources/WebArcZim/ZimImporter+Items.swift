import Foundation
import WebArc
import WebArcReplay

extension ZimImporter {
    /// An item to store: its entry (with its size) and the response it becomes.
    private struct PlannedItem: Sendable {
        var entry: ZimArchive.Entry
        var url: String
        var status: Int
        var reason: String?
        var headers: [HTTPHeader]
        var date: Date?
    }

    /// Stores the items `indexes` (in cluster order) and their responses.
    ///
    /// Bodies go through the writer's pipeline (``WebArc/ArchiveWriter/addBodies(sizes:read:added:)``):
    /// items are read (``ZimClusterReader``, else libzim), and bodies hashed and compressed, on a
    /// worker per core, a window of 12 MiB ahead. With ``ZimImportOptions/skipBad`` they are read one at a time on this thread
    /// instead, so that an entry libzim cannot read is skipped before its body takes a position.
    func writeItems(
        _ indexes: [UInt32], of zim: ZimArchive, mapping: any ZimEntryMapping, to writer: ArchiveWriter,
        written: inout Written,
        summary: inout ZimImportSummary, progress: (Int) -> Void
    ) throws {
        var items: [PlannedItem] = []
        items.reserveCapacity(indexes.count)
        for index in indexes {
            guard let entry = try readable({ try zim.entry(index) }, summary: &summary) else { continue }
            switch mapping.target(of: entry) {
            case .response(let url, let status, let reason, let headers, let date):
                items.append(
                    PlannedItem(entry: entry, url: url, status: status, reason: reason, headers: headers, date: date))
            case .leftOut(let why): summary.leftOut.append(why)
            case .elsewhere: continue
            }
        }
        let maxSize = options.maxEntrySize
        if options.skipBad {
            for (number, item) in items.enumerated() {
                let body = try readable(
                    {
                        try zim.readItem(item.entry, maxSize: maxSize) { bytes in
                            try mapping.storedBody(of: item.entry, bytes: bytes).map { try writer.addBody($0) }
                                ?? writer.addBody(bytes)
                        }
                    }, summary: &summary)
                if let body { try store(item, body: body, to: writer, written: &written, summary: &summary) }
                progress(number + 1)
            }
            return
        }
        for item in items where item.entry.size > maxSize {
            throw ZimError.entryTooLarge(file: zim.path, entry: item.entry.path, size: item.entry.size, limit: maxSize)
        }
        let entries = items.map(\.entry)
        let clusters = try ZimClusterReader(zim, limit: ZimClusterReader.defaultLimit)
        try writer.addBodies(sizes: entries.map(\.size)) { number in
            let entry = entries[number]
            if let bytes = try clusters.read(entry) {
                return bytes.withUnsafeBytes { mapping.storedBody(of: entry, bytes: $0) } ?? bytes
            }
            return try zim.readItem(entry, maxSize: maxSize) { bytes in
                mapping.storedBody(of: entry, bytes: bytes) ?? Array(bytes)
            }
        } added: { number, body in
            try store(items[number], body: body, to: writer, written: &written, summary: &summary)
            progress(number + 1)
        }
    }

    /// Adds the response of a stored item; `Content-Length` follows the stored body.
    private func store(
        _ item: PlannedItem, body: StoredBody, to writer: ArchiveWriter, written: inout Written,
        summary: inout ZimImportSummary
    ) throws {
        var headers = item.headers
        if body.length != item.entry.size,
            let length = headers.firstIndex(where: { $0.name.lowercased() == "content-length" })
        {
            headers[length].value = String(body.length)
        }
        written.bodies[item.entry.path] = body
        let media = ContentTypeParts.of(headers.value(for: "Content-Type") ?? item.entry.mimeType)
        try add(
            .response(
                ResponseRecord(
                    request: RequestRecord(url: item.url), status: item.status, reason: item.reason, headers: headers,
                    mimeType: media.mimeType,
                    textEncoding: media.textEncoding, body: body, captureDate: item.date)), to: writer,
            written: &written, summary: &summary)
    }
}
