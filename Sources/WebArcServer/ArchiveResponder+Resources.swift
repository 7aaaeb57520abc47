import NIOCore
import WebArc
import WebArcReplay
import WebArcSearch

extension ArchiveResponder {
    /// The resource a target resolves to, from the cache or looked up now; nil on a miss.
    ///
    /// Origin-form targets (`/…`) map through the ``OriginMap`` and get links rewritten and
    /// redirects mapped; absolute-form targets of an archived origin (a browser using the server
    /// as its proxy) are answered exactly as stored.
    ///
    /// The archive URL is looked up by the replay engine: its canonical key, then the fuzzy rules
    /// of `Spec/replay.md` (a trailing `?`, parameter order, `index.html`, a cache-buster query
    /// dropped). An answer found by dropping the query is cached under the target without the
    /// query only, so that distinct queries (a crawler's, or junk) never fill the cache with
    /// copies of one resource.
    ///
    /// - Throws: ``TargetError`` for a target that is neither form; ``WebArcError`` from the archives.
    func resource(for target: String) throws -> Resource? {
        if let cached = resources.withLock({ $0.value(for: target) }) { return cached }
        let generation = self.generation
        guard let (resource, key) = try resolve(target: target) else { return nil }
        // The key is held as long as the resource, so it counts towards the budget too. A resource
        // of archives replaced meanwhile answers this request only.
        if self.generation == generation {
            resources.withLock { $0.insert(resource, for: key, cost: resource.cost + key.utf8.count) }
        }
        return resource
    }

    /// Resolves a target: the resource and the key to cache it under.
    private func resolve(target: String) throws -> (Resource, String)? {
        if target.hasPrefix("/") { return try resolve(path: target) }
        guard let origin = Origin(url: target) else { throw TargetError() }
        guard archives.originMap.contains(origin) else { return nil }
        return try resolve(url: target, origin: origin, mapped: false, target: target)
    }

    /// Resolves an origin-form target; `/` falls back to a redirect to the start page.
    private func resolve(path: String) throws -> (Resource, String)? {
        switch archives.originMap.route(forPath: path) {
        case nil:
            return nil
        case .addSlash(let location):
            return (.redirect(status: 301, location: location), path)
        case .archive(let url, let origin):
            if let resolved = try resolve(url: url, origin: origin, mapped: true, target: path) { return resolved }
            guard path == "/", let start = archives.startURL,
                let served = archives.originMap.servedPath(forArchiveURL: start),
                served != "/"
            else { return nil }
            return (.redirect(status: 302, location: served), path)
        }
    }

    /// Looks `url` up in the archives; `mapped` rewrites links and redirect targets to served paths.
    private func resolve(url: String, origin: Origin, mapped: Bool, target: String) throws -> (Resource, String)? {
        guard let match = try archives.lookup(url: url) else { return nil }
        var key = target
        if match.rule == .queryDropped, let question = target.firstIndex(of: "?") {
            key = String(target[..<question])
            if let cached = resources.withLock({ $0.value(for: key) }) { return (cached, key) }
        }
        switch match.entry.record {
        case .redirect(let redirect):
            let location =
                mapped
                ? archives.originMap.servedPath(forArchiveURL: redirect.target) ?? redirect.target : redirect.target
            return (.redirect(status: redirect.status, location: location, stored: redirect.headers), key)
        case .response(let response):
            let reader = try reader(match.archive, for: response.body)
            let entry = try reader.bodyEntry(response.body, known: match.entry.body)
            let body = ServedBody(archive: match.archive, reader: reader, entry: entry)
            return (
                try resource(
                    for: response, body: body, url: url, archive: match.archive, rewritingFor: mapped ? origin : nil),
                key
            )
        case .tombstone:
            return nil
        }
    }

    /// A stored response's resource: replayed headers plus the server's own, and the body
    /// rewritten when it is HTML or CSS served under a mapped path.
    private func resource(
        for response: ResponseRecord, body: ServedBody, url: String, archive: Int, rewritingFor origin: Origin?
    ) throws -> Resource {
        var headers = ReplayedHeaders.replayed(response.headers)
        let contentType = ReplayedHeaders.contentType(
            stored: response.headers, mimeType: response.mimeType, textEncoding: response.textEncoding, url: url)
        if response.headers.value(for: "Content-Type") == nil {
            headers.append(HTTPHeader("Content-Type", contentType))
        }
        var etag = response.body.etag
        var length = response.bodyLength
        var content = Resource.Content.stored(body)
        var decodedNow: ByteBuffer?
        if let origin, let kind = LinkRewriter.kind(forMediaType: ReplayedHeaders.mediaType(of: contentType)),
            length <= Self.rewriteLimit, (response.headers.value(for: "Content-Encoding") ?? "identity") == "identity"
        {
            let (stored, isNew) = try wholeBody(body)
            let rewriter = LinkRewriter(map: archives.originMap, kind: kind, pageOrigin: origin)
            var changed = rewriter.rewrite(Array(stored.readableBytesView))
            // The search box goes into the page as served, so its length and entity tag cover it.
            if searchBox, kind == .html, let boxed = SearchBox.inject(into: changed ?? Array(stored.readableBytesView))
            {
                changed = boxed
            }
            if let rewritten = changed {
                content = .memory(ByteBuffer(bytes: rewritten))
                headers.removeAll { ReplayedHeaders.droppedWhenRewritten.contains($0.name.lowercased()) }
                length = UInt64(rewritten.count)
                etag = String(etag.dropLast()) + "-r" + String(FNV1a.hash(rewritten), radix: 16) + "\""
            } else if isNew {
                decodedNow = stored
            }
        }
        let lastModifiedText =
            response.headers.value(for: "Last-Modified")
            ?? response.captureDate.map { HTTPDate.format(Int64($0.timeIntervalSince1970)) }
        headers.append(HTTPHeader("ETag", etag))
        if let lastModifiedText { headers.append(HTTPHeader("Last-Modified", lastModifiedText)) }
        headers.append(HTTPHeader("Accept-Ranges", "bytes"))
        let resource = Resource(
            status: response.status, reason: response.reason, headers: HeaderBlock(headers), etag: etag,
            lastModified: lastModifiedText.flatMap(HTTPDate.parse), length: length, content: content)
        // A body decoded for the rewrite check and served as stored is cached now, after its plain head.
        if let decodedNow, length <= bodies.maxBodySize {
            bodies.store(decodedNow, for: body.key, head: resource.plainHead)
        }
        return resource
    }

    /// A whole stored body in memory, and whether it was decoded now: from the hot-body cache when
    /// it holds it as bytes, decoded otherwise (not cached: the caller caches it with its head).
    private func wholeBody(_ body: ServedBody) throws -> (ByteBuffer, isNew: Bool) {
        if case .memory(let buffer)? = bodies.cached(body.key) { return (buffer, false) }
        return (try bodies.decode(body), true)
    }

    /// A stored body from the hot-body cache (decoding it on a miss), or nil when it is too large
    /// to cache and must be streamed with ``chunkIterator(_:range:)``.
    ///
    /// - Parameter head: the complete response head to put before a body decoded now into a memory
    ///   file, so that a plain GET of its resource is one `sendfile` (see ``CachedBody``).
    /// - Throws: ``WebArcError`` when the body cannot be read.
    package func cachedBody(
        _ body: ServedBody, head: ByteBuffer = ByteBuffer()
    ) throws -> CachedBody? {
        try bodies.body(body, head: head)
    }

    /// A stored body the hot-body cache already holds, or nil; never reads the archive.
    package func hotBody(_ body: ServedBody) -> CachedBody? {
        bodies.cached(body.key)
    }

    /// Whether a body of `length` bytes goes through the hot-body cache rather than streaming.
    package func cachesBody(length: UInt64) -> Bool { length <= bodies.maxBodySize }

    /// A pull-based reader of a stored body's range, one decoded chunk (at most 256 KiB) at a time.
    ///
    /// - Throws: ``WebArcError`` when the body is missing or the range lies outside it.
    package func chunkIterator(_ body: ServedBody, range: Range<UInt64>) throws -> BodyChunkIterator {
        try body.reader.makeChunkIterator(for: body.entry, range: range)
    }
}

/// The 64-bit FNV-1a hash, to tell rewritten bodies apart in entity tags (not a security check).
enum FNV1a {
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}
