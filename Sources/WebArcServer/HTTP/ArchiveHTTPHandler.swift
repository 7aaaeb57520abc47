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
///
/// Connection events and request order live here, writing in `ArchiveHTTPHandler+Writing.swift`;
/// the state is internal only so that the two halves share it.
final class ArchiveHTTPHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let responder: ArchiveResponder
    let accessLog: AccessLog?
    let pool: NIOThreadPool
    let gauge: StreamGauge
    let events: HandlerEvents
    let idleTimeout: TimeAmount
    /// The number of the connection's event loop, which picks its descriptor of a memory file.
    let loop: Int

    /// The request whose head has arrived and whose end has not.
    var head: HTTPRequestHead?
    /// Complete requests not answered yet (pipelined behind the one in progress).
    var waiting = CircularBuffer<HTTPRequestHead>(initialCapacity: 2)
    /// A response is being decided or written.
    var responding = false
    /// ``drain(context:)`` is running (a response finished inside it must not start another drain).
    var draining = false
    /// NIO asked for a read while a response was in progress; it is passed on once none is.
    var readHeld = false
    /// No further request is taken: the client asked to close, the parser failed, or the server
    /// stops; the connection closes once the requests already queued are answered.
    var closing = false
    /// The parser refused what followed the queued requests: a 400 goes out after their answers
    /// (unless the last of them closed the connection anyway).
    var refuseWhenDrained = false
    /// The connection closes once the writes queued so far are done.
    var closeScheduled = false
    /// The response in progress keeps the connection open afterwards.
    var keepAlive = true
    var streaming: BodyChunkIterator?
    /// The head of the streamed response (and its request's version), held until its first
    /// chunk is verified.
    var streamHead: (head: ByteBuffer, version: HTTPVersion)?
    /// The response in progress until its access-log line is written (nil without an access log).
    var answer: Answer?
    /// Bytes of streamed chunks written to the channel on this connection, and of those the
    /// channel has written out: what a body cut short by a failure had sent.
    var streamQueued: UInt64 = 0
    var streamWritten: UInt64 = 0
    /// A pool thread is decoding the next chunk of `streaming`.
    var decoding = false
    /// Bytes of streamed chunks written to the channel and not yet taken by the kernel.
    var backlog = 0
    /// When the client last sent bytes or a response last ended.
    var lastActivity = NIODeadline.now()
    var idleCheck: Scheduled<Void>?

    /// `TCP_CORK` (3 on Linux) or `TCP_NOPUSH` (4 on Darwin); the C headers Swift imports do
    /// not name them.
    #if os(Linux)
    static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 3))
    #else
    static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 4))
    #endif

    init(
        responder: ArchiveResponder, accessLog: AccessLog?, pool: NIOThreadPool, gauge: StreamGauge,
        events: HandlerEvents,
        idleTimeout: TimeAmount, loop: Int = 0
    ) {
        self.loop = loop
        self.responder = responder
        self.accessLog = accessLog
        self.pool = pool
        self.gauge = gauge
        self.events = events
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
            if !context.channel.isWritable { events.note(.answersHeld) }
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
        // The client left during a response: what reached the socket is what was sent.
        if let answer { logAnswer(bytes: answer.streamed(of: streamWritten)) }
        streaming = nil
        streamHead = nil
        idleCheck?.cancel()
        idleCheck = nil
        context.fireChannelInactive()
    }

    // MARK: Idle timeout

    /// Closes the connection when it has sent nothing for ``idleTimeout`` while no response is in
    /// progress, so that abandoned keep-alive connections do not pile up. A response still being
    /// taken by a slow client (bytes waiting in the channel) counts as in progress.
    private func scheduleIdleCheck(context: ChannelHandlerContext, at deadline: NIODeadline) {
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            let now = NIODeadline.now()
            let unsent = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
            if responding || head != nil || streaming != nil || unsent > 0 {
                if now - lastActivity >= idleTimeout { events.note(.idleCheckKeptBusyConnection) }
                scheduleIdleCheck(context: context, at: now + idleTimeout)
            } else if now - lastActivity >= idleTimeout {
                idleCheck = nil
                events.note(.idleConnectionClosed)
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
    func drain(context: ChannelHandlerContext) {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !responding, context.channel.isWritable, let next = waiting.popFirst() {
            respond(to: next, context: context)
        }
        if !responding, !context.channel.isWritable, !waiting.isEmpty || readHeld { events.note(.answersHeld) }
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
}
