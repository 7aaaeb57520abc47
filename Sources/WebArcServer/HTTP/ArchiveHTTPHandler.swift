import NIOCore
import NIOHTTP1
import WebArc

/// The NIO channel handler of one connection: asks the responder for a decision, then writes it.
///
/// Requests arrive one at a time (`HTTPServerPipelineHandler` holds pipelined ones back). Bodies
/// small enough for the hot-body cache go out as one shared buffer or, from a memory file, with
/// `sendfile`; larger ones are decoded one chunk at a time, and the next chunk is decoded only while the channel is writable, so a slow
/// client holds at most one chunk plus the socket buffers in memory.
final class ArchiveHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: ArchiveResponder
    private let accessLog: AccessLog?
    private var head: HTTPRequestHead?
    private var keepAlive = true
    private var streaming: BodyChunkIterator?

    /// `TCP_CORK` (3 on Linux) or `TCP_NOPUSH` (4 on Darwin); the C headers Swift imports do
    /// not name them.
    #if os(Linux)
    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 3))
    #else
    private static let cork = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 4))
    #endif

    init(responder: ArchiveResponder, accessLog: AccessLog?) {
        self.responder = responder
        self.accessLog = accessLog
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
            if streaming == nil && head == nil { context.close(promise: nil) }
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
        let request = ArchiveRequest(
            method: head.method.rawValue, target: head.uri, range: head.headers.first(name: "range"),
            ifRange: head.headers.first(name: "if-range"), ifNoneMatch: head.headers.first(name: "if-none-match"),
            ifModifiedSince: head.headers.first(name: "if-modified-since"))
        let decision = responder.decide(request)
        accessLog?.record(request, version: head.version, decision: decision, client: context.channel.remoteAddress)

        var headers = HTTPHeaders(decision.headers.map { ($0.name, $0.value) })
        keepAlive = head.isKeepAlive
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
            do {
                switch try responder.cachedBody(archive: archive, reference: reference, length: length) {
                case .memory(let body)?:
                    let slice = body.getSlice(at: body.readerIndex + Int(range.lowerBound), length: range.count) ?? body
                    context.write(wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
                    finish(context: context)
                case .file(let file)?:
                    // The head goes out by writev and the body by sendfile: cork so that they
                    // leave in full segments, not as a lone head packet.
                    let options = context.channel.syncOptions
                    try? options?.setOption(Self.cork, value: 1)
                    let region = FileRegion(
                        fileHandle: file.handle, readerIndex: Int(range.lowerBound), endIndex: Int(range.upperBound))
                    context.write(wrapOutboundOut(.body(.fileRegion(region))), promise: nil)
                    finish(context: context, keeping: file)
                    try? options?.setOption(Self.cork, value: 0)
                case nil:
                    streaming = try responder.chunkIterator(archive: archive, reference: reference, range: range)
                    pump(context: context)
                }
            } catch {
                fail(error, context: context)
            }
        }
    }

    /// Writes decoded chunks while the channel accepts them; resumes on `channelWritabilityChanged`.
    private func pump(context: ChannelHandlerContext) {
        while var iterator = streaming, context.channel.isWritable {
            do {
                guard let chunk = try iterator.next() else {
                    streaming = nil
                    finish(context: context)
                    return
                }
                streaming = iterator
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: chunk)))), promise: nil)
            } catch {
                fail(error, context: context)
                return
            }
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
}
