import NIOCore
import NIOHTTP1
import NIOPosix
import WebArc

/// The NIO channel handler of one connection, right after NIO's HTTP/1 request decoder: asks the
/// responder for a decision, then writes it as bytes.
///
/// It is the whole HTTP/1 server side but request parsing: it answers pipelined requests one at a
/// time in order (holding reads back while it answers, so a client cannot queue unbounded work),
/// sends 400 for a request NIO's parser refuses, closes a connection idle for
/// ``WebArcServer/Configuration/idleTimeout``, and on NIO's `ChannelShouldQuiesceEvent` closes
/// once the response in progress is written. Response heads are written from bytes: each
/// resource's header fields are encoded once (``HeaderBlock``), so a hot request costs a lookup and
/// two buffer writes rather than a pass through NIO's header validator, pipelining handler and
/// encoder.
///
/// A request whose resource and body are cached is answered on the event loop: one shared buffer
/// or, from a memory file, `sendfile`. Everything that reads the archive (lookups, decoding a
/// cold body, rewriting links) runs on a thread pool, and the answer is written back on the
/// channel's event loop, so a cold 8 MiB page never stalls the other connections of its loop.
/// Bodies too large to cache are decoded one chunk at a time, the next only while the channel
/// is writable, so a slow client holds at most one chunk plus the socket buffers in memory.
final class ArchiveHTTPHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let responder: ArchiveResponder
    private let accessLog: AccessLog?
    private let pool: NIOThreadPool
    private let gauge: StreamGauge
    private let idleTimeout: TimeAmount

    /// The request whose head has arrived and whose end has not.
    private var head: HTTPRequestHead?
    /// Complete requests not answered yet (pipelined behind the one in progress).
    private var waiting = CircularBuffer<HTTPRequestHead>(initialCapacity: 2)
    /// A response is being decided or written.
    private var responding = false
    /// ``drain(context:)`` is running (a response finished inside it must not start another drain).
    private var draining = false
    /// NIO asked for a read while a response was in progress; it is passed on once none is.
    private var readHeld = false
    /// No further request is taken: the client asked to close, the parser failed, or the server
    /// stops; the connection closes once the requests already queued are answered.
    private var closing = false
    /// The parser refused what followed the queued requests: a 400 goes out after their answers
    /// (unless the last of them closed the connection anyway).
    private var refuseWhenDrained = false
    /// The connection closes once the writes queued so far are done.
    private var closeScheduled = false
    /// The response in progress keeps the connection open afterwards.
    private var keepAlive = true
    private var streaming: BodyChunkIterator?
    /// A pool thread is decoding the next chunk of `streaming`.
    private var decoding = false
    /// Bytes of streamed chunks written to the channel and not yet taken by the kernel.
    private var backlog = 0
    /// When the client last sent bytes or a response last ended.
    private var lastActivity = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?

    /// `TCP_CORK` (3 on Linux) or `TCP_NOPUSH` (4 on Darwin); the C headers Swift imports do
    /// not name them.
    #if os(Linux)
    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 3))
    #else
    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 4))
    #endif

    init(responder: ArchiveResponder, accessLog: AccessLog?, pool: NIOThreadPool, gauge: StreamGauge, idleTimeout: TimeAmount) {
        self.responder = responder
        self.accessLog = accessLog
        self.pool = pool
        self.gauge = gauge
        self.idleTimeout = idleTimeout
    }

    // MARK: Connection events

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { scheduleIdleCheck(context: context, at: .now() + idleTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if idleCheck == nil { scheduleIdleCheck(context: context, at: .now() + idleTimeout) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            if !closing { waiting.append(head) }
            drain(context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        lastActivity = .now()
        context.fireChannelReadComplete()
    }

    /// Holds NIO's next read back while a response is in progress or the client is not taking
    /// what was written: pipelined requests wait in the socket, not as answers piling up in memory
    /// for a client that sends and never reads.
    func read(context: ChannelHandlerContext) {
        if responding || !waiting.isEmpty || !context.channel.isWritable {
            readHeld = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            if streaming != nil { pump(context: context) } else { drain(context: context) }
        }
        context.fireChannelWritabilityChanged()
    }

    /// A stop asks every connection to finish: an idle one closes now, a busy one after its response.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
        closing = true
        waiting.removeAll()
        drain(context: context)
    }

    /// A request NIO's parser refuses gets a 400 once the complete requests before it are
    /// answered, then the connection closes; any other error (a reset, say) closes it at once.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.close(promise: nil)
            return
        }
        closing = true
        refuseWhenDrained = true
        head = nil
        drain(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        streaming = nil
        idleCheck?.cancel()
        idleCheck = nil
        context.fireChannelInactive()
    }

    // MARK: Idle timeout

    /// Closes the connection when it has sent nothing for ``idleTimeout`` while no response is in
    /// progress, so that abandoned keep-alive connections do not pile up.
    private func scheduleIdleCheck(context: ChannelHandlerContext, at deadline: NIODeadline) {
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            let now = NIODeadline.now()
            if responding || head != nil || streaming != nil {
                scheduleIdleCheck(context: context, at: now + idleTimeout)
            } else if now - lastActivity >= idleTimeout {
                idleCheck = nil
                context.close(promise: nil)
            } else {
                scheduleIdleCheck(context: context, at: lastActivity + idleTimeout)
            }
        }
    }

    // MARK: Requests in order

    /// Answers waiting requests one at a time while none is in progress and the client takes
    /// what is written; once none waits, closes a closing connection (after a 400 when the parser
    /// failed) or passes a held read on.
    private func drain(context: ChannelHandlerContext) {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !responding, context.channel.isWritable, let next = waiting.popFirst() {
            respond(to: next, context: context)
        }
        guard !responding, waiting.isEmpty else { return }
        if closing {
            if refuseWhenDrained && keepAlive && !closeScheduled {
                context.write(wrapOutboundOut(.byteBuffer(ResponseHeadEncoder.badRequest)), promise: nil)
            }
            closeAfterWrites(context: context)
        } else if readHeld, context.channel.isWritable {
            readHeld = false
            context.read()
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        responding = true
        keepAlive = head.isKeepAlive
        if !keepAlive {
            // Nothing pipelined after a request that closes the connection is answered.
            closing = true
            waiting.removeAll()
        }
        let request = ArchiveRequest(head)
        if let decision = responder.decideWithoutReading(request) {
            write(decision, for: request, version: head.version, context: context)
            return
        }
        let responder = self.responder
        offload(context: context, { responder.decide(request) }) { handler, context, result in
            guard case .success(let decision) = result else { return handler.fail(result, context: context) }
            handler.write(decision, for: request, version: head.version, context: context)
        }
    }

    // MARK: Writing

    /// Writes the head of `decision`, then its body: a hot body at once, a cold one once a pool
    /// thread has decoded it, a large one chunk by chunk.
    private func write(_ decision: ResponseDecision, for request: ArchiveRequest, version: HTTPVersion, context: ChannelHandlerContext) {
        accessLog?.record(request, version: version, decision: decision, client: context.channel.remoteAddress)
        let connection: StaticString? = !keepAlive ? "close" : (version.major == 1 && version.minor == 0 ? "keep-alive" : nil)
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
        case .stored(let archive, let reference, let length, let range):
            if let body = responder.hotBody(archive: archive, reference: reference) {
                write(head: head, body: body, range: range, context: context)
            } else if responder.cachesBody(length: length) {
                let responder = self.responder
                let fileHead = plainHead ?? ByteBuffer()
                offload(context: context, { try responder.cachedBody(archive: archive, reference: reference, length: length, head: fileHead) }) {
                    handler, context, result in
                    guard case .success(let body?) = result else { return handler.fail(result, context: context) }
                    handler.write(head: head, body: body, range: range, context: context)
                }
            } else {
                do {
                    streaming = try responder.chunkIterator(archive: archive, reference: reference, range: range)
                    context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
                    pump(context: context)
                } catch {
                    fail(error, context: context)
                }
            }
        }
    }

    /// Writes `head` and `range` of a whole cached body, and ends the response.
    private func write(head: ByteBuffer, body: CachedBody, range: Range<UInt64>, context: ChannelHandlerContext) {
        switch body {
        case .memory(let body):
            let slice = body.getSlice(at: body.readerIndex + Int(range.lowerBound), length: range.count) ?? body
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            context.write(wrapOutboundOut(.byteBuffer(slice)), promise: nil)
            finish(context: context)
        case .file(let file) where range.count == file.length && file.head == head:
            // The file holds this very head before the body: one sendfile sends the response.
            let region = FileRegion(fileHandle: file.handle, readerIndex: 0, endIndex: file.bodyOffset + file.length)
            context.write(wrapOutboundOut(.fileRegion(region))).assumeIsolated().whenComplete { _ in withExtendedLifetime(file) {} }
            finish(context: context)
        case .file(let file):
            // The head goes out by write and the body by sendfile: cork so that they leave in
            // full segments, not as a lone head packet.
            let options = context.channel.syncOptions
            try? options?.setOption(Self.cork, value: 1)
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            let region = FileRegion(
                fileHandle: file.handle, readerIndex: file.bodyOffset + Int(range.lowerBound), endIndex: file.bodyOffset + Int(range.upperBound))
            // The memory file stays open until the kernel has taken the region.
            context.write(wrapOutboundOut(.fileRegion(region))).assumeIsolated().whenComplete { _ in withExtendedLifetime(file) {} }
            finish(context: context)
            try? options?.setOption(Self.cork, value: 0)
        }
    }

    /// Decodes the next chunk on a pool thread while the channel accepts writes, writes it, and
    /// goes on; resumes on `channelWritabilityChanged`. One chunk is decoded at a time, so a slow
    /// client holds at most one chunk plus the channel's and the socket's buffers.
    private func pump(context: ChannelHandlerContext) {
        guard let iterator = streaming, !decoding, context.channel.isWritable else { return }
        decoding = true
        offload(context: context, { () throws -> (BodyChunkIterator, [UInt8]?) in
            var iterator = iterator
            let chunk = try iterator.next()
            return (iterator, chunk)
        }) { handler, context, result in
            handler.decoding = false
            guard handler.streaming != nil else { return }
            switch result {
            case .success((let iterator, let chunk?)):
                handler.streaming = iterator
                handler.writeChunk(chunk, context: context)
                handler.pump(context: context)
            case .success((_, nil)):
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
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: chunk))))
            .assumeIsolated().whenComplete { [self] _ in backlog -= chunk.count }
    }

    /// Runs `work` on the thread pool, then `then` back on the channel's event loop.
    private func offload<Value: Sendable>(
        context: ChannelHandlerContext, _ work: @escaping @Sendable () throws -> Value,
        then: @escaping (ArchiveHTTPHandler, ChannelHandlerContext, Result<Value, any Error>) -> Void
    ) {
        pool.runIfActive(eventLoop: context.eventLoop, work).assumeIsolated().whenComplete { [self] result in
            then(self, context, result)
        }
    }

    /// Ends the response and goes on with the next request; a connection that is not kept alive
    /// closes once the response is written.
    private func finish(context: ChannelHandlerContext) {
        context.flush()
        lastActivity = .now()
        responding = false
        drain(context: context)
    }

    /// Closes the connection once every write queued so far is done (closing at once would drop
    /// the end of a body the kernel has not taken yet).
    private func closeAfterWrites(context: ChannelHandlerContext) {
        guard !closeScheduled else { return }
        closeScheduled = true
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer()))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// A body that fails after its head went out cannot change status: the connection is closed,
    /// so the client sees a truncated body rather than a wrong one.
    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        streaming = nil
        closing = true
        waiting.removeAll()
        accessLog?.failure(error)
        context.close(promise: nil)
    }

    /// Fails with the error of `result`, or with ``ArchiveHTTPHandler/MissingBody`` when it holds
    /// no body where one was expected.
    private func fail<Value>(_ result: Result<Value, any Error>, context: ChannelHandlerContext) {
        guard case .failure(let error) = result else { return fail(MissingBody(), context: context) }
        fail(error, context: context)
    }

    /// A body the hot-body cache was to hold but did not.
    struct MissingBody: Error {}
}

extension ArchiveRequest {
    /// The request line and the headers that change the answer, from NIO's parsed head.
    init(_ head: HTTPRequestHead) {
        self.init(
            method: head.method.rawValue, target: head.uri, range: head.headers.first(name: "range"),
            ifRange: head.headers.first(name: "if-range"), ifNoneMatch: head.headers.first(name: "if-none-match"),
            ifModifiedSince: head.headers.first(name: "if-modified-since"))
    }
}
