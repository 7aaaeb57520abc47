import NIOCore
import NIOHTTP1
import NIOPosix
import WebArc

/// Writing answers: heads as bytes, bodies from memory, from memory files by `sendfile`, or
/// decoded chunk by chunk; the end of a response and the connection's close.
extension ArchiveHTTPHandler {
    /// Writes the head of `decision`, then its body: a hot body at once, a cold one once a pool
    /// thread has decoded it, a large one chunk by chunk.
    func write(
        _ decision: ResponseDecision, for request: ArchiveRequest, version: HTTPVersion, context: ChannelHandlerContext
    ) {
        if accessLog != nil {
            answer = Answer(
                request: request, version: version, status: decision.status, length: decision.body.count,
                client: context.channel.remoteAddress, streamStart: streamQueued)
        }
        let connection: StaticString? =
            !keepAlive ? "close" : (version.major == 1 && version.minor == 0 ? "keep-alive" : nil)
        // The resource's plain head, encoded once, serves every HTTP/1.1 keep-alive plain answer.
        let plainHead = connection == nil && version.major == 1 && version.minor == 1 ? decision.encodedHead : nil
        let head = plainHead ?? ResponseHeadEncoder.encode(decision, version: version, connection: connection)
        switch decision.body {
        case .none:
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            finish(context: context)
        case .bytes(let buffer):
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: nil)
            finish(context: context)
        case .stored(let stored, let range):
            if let body = responder.hotBody(stored) {
                write(head: head, body: body, range: range, context: context)
            } else if responder.cachesBody(length: stored.entry.length) {
                let responder = self.responder
                let fileHead = plainHead ?? ByteBuffer()
                offload(
                    context: context,
                    { try responder.cachedBody(stored, head: fileHead) }
                ) {
                    handler, context, result in
                    switch result {
                    case .success(let body?): handler.write(head: head, body: body, range: range, context: context)
                    case .success(nil):
                        handler.failBeforeHead(
                            MissingBody(), isHead: request.isHead, version: version, context: context)
                    case .failure(let error):
                        handler.failBeforeHead(error, isHead: request.isHead, version: version, context: context)
                    }
                }
            } else {
                // Finding the body entry may read a page of the body tree: on the pool, like every
                // read (an archive read over HTTP waits for the network there).
                let responder = self.responder
                offload(
                    context: context,
                    { try responder.chunkIterator(stored, range: range) }
                ) {
                    handler, context, result in
                    switch result {
                    case .success(let iterator):
                        // The head waits for the first chunk: a body damaged there still gets a 500.
                        handler.streaming = iterator
                        handler.streamHead = (head, version)
                        handler.pump(context: context)
                    case .failure(let error):
                        handler.failBeforeHead(error, isHead: request.isHead, version: version, context: context)
                    }
                }
            }
        }
    }

    /// Writes `head` and `range` of a whole cached body, and ends the response.
    func write(head: ByteBuffer, body: CachedBody, range: Range<UInt64>, context: ChannelHandlerContext) {
        switch body {
        case .memory(let body):
            let slice = body.getSlice(at: body.readerIndex + Int(range.lowerBound), length: range.count) ?? body
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            context.write(wrapOutboundOut(.byteBuffer(slice)), promise: nil)
            finish(context: context)
        case .file(let file) where range.count == file.length && file.head == head:
            // The file holds this very head before the body: one sendfile sends the response.
            let region = FileRegion(
                fileHandle: file.handle(loop: loop), readerIndex: 0, endIndex: file.bodyOffset + file.length)
            context.write(wrapOutboundOut(.fileRegion(region))).assumeIsolated().whenComplete { _ in
                withExtendedLifetime(file) {}
            }
            finish(context: context)
        case .file(let file):
            // The head goes out by write and the body by sendfile: cork so that they leave in
            // full segments, not as a lone head packet.
            let options = context.channel.syncOptions
            try? options?.setOption(Self.cork, value: 1)
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            let region = FileRegion(
                fileHandle: file.handle(loop: loop), readerIndex: file.bodyOffset + Int(range.lowerBound),
                endIndex: file.bodyOffset + Int(range.upperBound))
            // The memory file stays open until the kernel has taken the region.
            context.write(wrapOutboundOut(.fileRegion(region))).assumeIsolated().whenComplete { _ in
                withExtendedLifetime(file) {}
            }
            finish(context: context)
            try? options?.setOption(Self.cork, value: 0)
        }
    }

    /// Decodes the next chunk on a pool thread while the channel accepts writes, writes it, and
    /// goes on; resumes on `channelWritabilityChanged`. One chunk is decoded at a time, so a slow
    /// client holds at most one chunk plus the channel's and the socket's buffers. A held head
    /// (``streamHead``) goes out with the first chunk, or a 500 page instead when that chunk fails.
    func pump(context: ChannelHandlerContext) {
        guard let iterator = streaming, !decoding else { return }
        guard context.channel.isWritable else { return events.note(.streamPaused) }
        decoding = true
        offload(
            context: context,
            { () throws -> (BodyChunkIterator, [UInt8]?) in
                var iterator = iterator
                let chunk = try iterator.next()
                return (iterator, chunk)
            }
        ) { handler, context, result in
            handler.decoding = false
            guard handler.streaming != nil else { return }
            if let pending = handler.streamHead {
                handler.streamHead = nil
                if case .failure(let error) = result {
                    return handler.failBeforeHead(error, isHead: false, version: pending.version, context: context)
                }
                context.write(handler.wrapOutboundOut(.byteBuffer(pending.head)), promise: nil)
            }
            switch result {
            case .success((let iterator, let chunk?)):
                handler.streaming = iterator
                handler.writeChunk(chunk, context: context)
                handler.pump(context: context)
            case .success((_, nil)):
                handler.events.note(.streamDecoded)
                handler.streaming = nil
                handler.finish(context: context)
            case .failure(let error):
                handler.fail(error, context: context)
            }
        }
    }

    /// Writes one streamed chunk, counting it as backlog until the kernel has taken it.
    private func writeChunk(_ chunk: [UInt8], context: ChannelHandlerContext) {
        backlog += chunk.count
        gauge.record(backlog)
        streamQueued += UInt64(chunk.count)
        // Logged as the last chunk goes out, so that a client holding the whole body finds its line.
        if let answer, streamQueued - answer.streamStart == answer.length { logAnswer(bytes: answer.length) }
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: chunk))))
            .assumeIsolated().whenComplete { [self] result in
                backlog -= chunk.count
                if case .success = result { streamWritten += UInt64(chunk.count) }
            }
    }

    /// Runs `work` on the thread pool, then `then` back on the channel's event loop.
    func offload<Value: Sendable>(
        context: ChannelHandlerContext, _ work: @escaping @Sendable () throws -> Value,
        then: @escaping (ArchiveHTTPHandler, ChannelHandlerContext, Result<Value, any Error>) -> Void
    ) {
        pool.runIfActive(eventLoop: context.eventLoop, work).assumeIsolated().whenComplete { [self] result in
            then(self, context, result)
        }
    }

    /// Ends the response and goes on with the next request; a connection that is not kept alive
    /// closes once the response is written.
    func finish(context: ChannelHandlerContext) {
        if let answer { logAnswer(bytes: answer.length) }
        context.flush()
        lastActivity = .now()
        responding = false
        drain(context: context)
    }

    /// Closes the connection once every write queued so far is done (closing at once would drop
    /// the end of a body the kernel has not taken yet); `then` runs just before it closes.
    func closeAfterWrites(context: ChannelHandlerContext, then: (() -> Void)? = nil) {
        guard !closeScheduled else {
            then?()
            return
        }
        closeScheduled = true
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer()))).assumeIsolated().whenComplete { _ in
            then?()
            context.close(promise: nil)
        }
    }

    /// A body that fails after its head went out cannot change status: the chunks already
    /// verified go out, then the connection closes, so the client sees a truncated body rather
    /// than a wrong one. The access log gets the stored status with the bytes actually written,
    /// and an error line.
    func fail(_ error: any Error, context: ChannelHandlerContext) {
        streaming = nil
        closing = true
        waiting.removeAll()
        responder.reloadLater(after: error)
        guard let answer else {
            // No response under way: the pool stopped before a decision.
            accessLog?.failure(error)
            return closeAfterWrites(context: context)
        }
        self.answer = nil
        closeAfterWrites(context: context) { [self] in
            let sent = answer.streamed(of: streamWritten)
            accessLog?.record(
                answer.request, version: answer.version, status: answer.status, bytes: sent, client: answer.client)
            accessLog?.failure(error, request: answer.request, sent: sent, of: answer.length)
        }
    }

    /// A body that fails (a chunk whose SHA-256 does not match, spec §11.2) before its head went
    /// out: a 500 page instead of the stored status, then the connection closes; the access log
    /// gets the page's status and length, and an error line. Nothing complete-looking is ever
    /// sent for a damaged body.
    func failBeforeHead(_ error: any Error, isHead: Bool, version: HTTPVersion, context: ChannelHandlerContext) {
        responder.reloadLater(after: error)
        let page = ServerPages.archiveError(error, isHead: isHead)
        if let request = answer?.request {
            logAnswer(status: page.status, bytes: page.body.count)
            accessLog?.failure(error, request: request, answered: page.status)
        }
        context.write(
            wrapOutboundOut(.byteBuffer(ResponseHeadEncoder.encode(page, version: version, connection: "close"))),
            promise: nil)
        if case .bytes(let buffer) = page.body { context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: nil) }
        streaming = nil
        closing = true
        waiting.removeAll()
        closeAfterWrites(context: context)
    }

    /// Writes the access-log line of the response in progress, once: the status and body bytes
    /// that went out (the decision's status unless `status` says otherwise).
    func logAnswer(status: Int? = nil, bytes: UInt64) {
        guard let answer else { return }
        self.answer = nil
        accessLog?.record(
            answer.request, version: answer.version, status: status ?? answer.status, bytes: bytes,
            client: answer.client)
    }

    /// A response whose access-log line waits until it is known what went out.
    struct Answer {
        let request: ArchiveRequest
        let version: HTTPVersion
        /// The status of the head written (or about to be).
        let status: Int
        /// The body bytes the head declares.
        let length: UInt64
        let client: SocketAddress?
        /// ``ArchiveHTTPHandler/streamQueued`` when the response began.
        let streamStart: UInt64

        /// This response's part of `total`, a connection's running count of streamed bytes.
        func streamed(of total: UInt64) -> UInt64 { total > streamStart ? total - streamStart : 0 }
    }

    /// Fails with the error of `result`, or with ``ArchiveHTTPHandler/MissingBody`` when it holds
    /// no body where one was expected.
    func fail<Value>(_ result: Result<Value, any Error>, context: ChannelHandlerContext) {
        guard case .failure(let error) = result else { return fail(MissingBody(), context: context) }
        fail(error, context: context)
    }

    /// A body the hot-body cache was to hold but did not.
    struct MissingBody: Error {}
}
