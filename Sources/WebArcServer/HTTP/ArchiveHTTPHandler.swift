import NIOCore
import NIOHTTP1
import NIOPosix
import WebArc

/// The NIO channel handler of one connection: asks the responder for a decision, then writes it.
///
/// Requests arrive one at a time (`HTTPServerPipelineHandler` holds pipelined ones back). A
/// request whose resource and body are cached is answered on the event loop: one shared buffer
/// or, from a memory file, `sendfile`. Everything that reads the archive (lookups, decoding a
/// cold body, rewriting links) runs on a thread pool, and the answer is written back on the
/// channel's event loop, so a cold 8 MiB page never stalls the other connections of its loop.
/// Bodies too large to cache are decoded one chunk at a time, the next only while the channel
/// is writable, so a slow client holds at most one chunk plus the socket buffers in memory.
final class ArchiveHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: ArchiveResponder
    private let accessLog: AccessLog?
    private let pool: NIOThreadPool
    private let gauge: StreamGauge
    private var head: HTTPRequestHead?
    private var keepAlive = true
    private var streaming: BodyChunkIterator?
    /// A pool thread is deciding or decoding for this connection.
    private var working = false
    /// A pool thread is decoding the next chunk of `streaming`.
    private var decoding = false
    /// Bytes of streamed chunks written to the channel and not yet taken by the kernel.
    private var backlog = 0

    /// `TCP_CORK` (3 on Linux) or `TCP_NOPUSH` (4 on Darwin); the C headers Swift imports do
    /// not name them.
    #if os(Linux)
    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 3))
    #else
    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 4))
    #endif

    init(responder: ArchiveResponder, accessLog: AccessLog?, pool: NIOThreadPool, gauge: StreamGauge) {
        self.responder = responder
        self.accessLog = accessLog
        self.pool = pool
        self.gauge = gauge
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end: if let head { respond(to: head, context: context) }
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if streaming != nil, context.channel.isWritable { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    /// A connection that sends nothing for ``WebArcServer/Configuration/idleTimeout`` while no body is streaming
    /// is closed, so that abandoned keep-alive connections do not pile up.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            if streaming == nil && head == nil && !working { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        streaming = nil
        context.fireChannelInactive()
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        self.head = nil
        keepAlive = head.isKeepAlive
        let request = ArchiveRequest(
            method: head.method.rawValue, target: head.uri, range: head.headers.first(name: "range"),
            ifRange: head.headers.first(name: "if-range"), ifNoneMatch: head.headers.first(name: "if-none-match"),
            ifModifiedSince: head.headers.first(name: "if-modified-since"))
        if let decision = responder.decideWithoutReading(request) {
            write(decision, for: request, head: head, context: context)
            return
        }
        let responder = self.responder
        offload(context: context, { responder.decide(request) }) { handler, context, result in
            guard case .success(let decision) = result else { return handler.fail(result, context: context) }
            handler.write(decision, for: request, head: head, context: context)
        }
    }

    /// Writes the head of `decision`, then its body: a hot body at once, a cold one once a pool
    /// thread has decoded it, a large one chunk by chunk.
    private func write(_ decision: ResponseDecision, for request: ArchiveRequest, head: HTTPRequestHead, context: ChannelHandlerContext) {
        accessLog?.record(request, version: head.version, decision: decision, client: context.channel.remoteAddress)
        var headers = HTTPHeaders(decision.headers.map { ($0.name, $0.value) })
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        } else if head.version.major == 1 && head.version.minor == 0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        let status = HTTPResponseStatus(statusCode: decision.status, reasonPhrase: decision.reason ?? "")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        switch decision.body {
        case .none:
            finish(context: context)
        case .bytes(let buffer):
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            finish(context: context)
        case .stored(let archive, let reference, let length, let range):
            if let body = responder.hotBody(archive: archive, reference: reference) {
                write(body, range: range, context: context)
            } else if responder.cachesBody(length: length) {
                let responder = self.responder
                offload(context: context, { try responder.cachedBody(archive: archive, reference: reference, length: length) }) {
                    handler, context, result in
                    guard case .success(let body?) = result else { return handler.fail(result, context: context) }
                    handler.write(body, range: range, context: context)
                }
            } else {
                do {
                    streaming = try responder.chunkIterator(archive: archive, reference: reference, range: range)
                    pump(context: context)
                } catch {
                    fail(error, context: context)
                }
            }
        }
    }

    /// Writes `range` of a whole cached body and ends the response.
    private func write(_ body: CachedBody, range: Range<UInt64>, context: ChannelHandlerContext) {
        switch body {
        case .memory(let body):
            let slice = body.getSlice(at: body.readerIndex + Int(range.lowerBound), length: range.count) ?? body
            context.write(wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
            finish(context: context)
        case .file(let file):
            // The head goes out by writev and the body by sendfile: cork so that they
            // leave in full segments, not as a lone head packet.
            let options = context.channel.syncOptions
            try? options?.setOption(Self.cork, value: 1)
            let region = FileRegion(fileHandle: file.handle, readerIndex: Int(range.lowerBound), endIndex: Int(range.upperBound))
            context.write(wrapOutboundOut(.body(.fileRegion(region))), promise: nil)
            finish(context: context, keeping: file)
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
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: chunk)))))
            .assumeIsolated().whenComplete { [self] _ in backlog -= chunk.count }
    }

    /// Runs `work` on the thread pool, then `then` back on the channel's event loop.
    private func offload<Value: Sendable>(
        context: ChannelHandlerContext, _ work: @escaping @Sendable () throws -> Value,
        then: @escaping (ArchiveHTTPHandler, ChannelHandlerContext, Result<Value, any Error>) -> Void
    ) {
        working = true
        pool.runIfActive(eventLoop: context.eventLoop, work).assumeIsolated().whenComplete { [self] result in
            working = false
            then(self, context, result)
        }
    }

    /// Ends the response, closing the connection afterwards unless it is kept alive; `file` (a
    /// memory file a region of the response reads) stays open until the write is done.
    private func finish(context: ChannelHandlerContext, keeping file: CachedBody.MemoryFile? = nil) {
        guard !keepAlive || file != nil else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let channel = context.channel
        let close = !keepAlive
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            withExtendedLifetime(file) {}
            if close { channel.close(promise: nil) }
        }
    }

    /// A body that fails after its head went out cannot change status: the connection is closed,
    /// so the client sees a truncated body rather than a wrong one.
    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        streaming = nil
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
