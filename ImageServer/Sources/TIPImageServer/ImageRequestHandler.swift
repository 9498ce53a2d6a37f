import Foundation
import NIOCore
import NIOHTTP1

/// Answers the requests of one connection (after NIO's HTTP/1.1 server pipeline, pipelining assistance on, so
/// requests arrive one at a time). Event-loop confined, like every channel handler.
final class ImageRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A body being streamed.
    private struct Stream {
        var buffer: ByteBuffer
        var plan: ResponsePlan
        var recordID: Int
        var chunkSize: Int
        var bytesPerSecond: Int?
        var start: NIODeadline
        var sent = 0
        var keepAlive: Bool
    }

    private let store: ServerStore
    private var requestHead: HTTPRequestHead?
    private var stream: Stream?
    private var scheduled: Scheduled<Void>?
    private var isActive = true

    init(store: ServerStore) {
        self.store = store
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
        case .body:
            break
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            begin(head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        scheduled?.cancel()
        scheduled = nil
        stream = nil
        context.fireChannelInactive()
    }

    private func begin(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path =
            head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
            .map(String.init) ?? ""
        let ticket = store.beginRequest(
            method: head.method.rawValue, path: path, uri: head.uri,
            headers: head.headers.map { (name: $0.name, value: $0.value) })
        let plan = ResponsePlan.make(for: head, path: path, ticket: ticket, store: store)
        let throttle = ticket.throttle
        let next = Stream(
            buffer: plan.body, plan: plan, recordID: ticket.recordID,
            chunkSize: max(1, throttle?.chunkSize ?? Int.max),
            bytesPerSecond: throttle?.bytesPerSecond.flatMap { $0 > 0 ? $0 : nil },
            start: .now(), keepAlive: head.isKeepAlive)
        stream = next
        if ticket.fault == .withholdResponse { return }  // the head never goes; the stream ends with the channel
        let latency = throttle?.latency ?? .zero
        if latency > .zero {
            schedule(in: Self.timeAmount(latency), context: context) { handler, context in
                handler.sendHead(context: context)
            }
        } else {
            sendHead(context: context)
        }
    }

    private func sendHead(context: ChannelHandlerContext) {
        guard isActive, var current = stream else { return }
        var headers = current.plan.headers
        if !current.keepAlive || current.plan.ending != .complete {
            headers.replaceOrAdd(name: "Connection", value: "close")
        }
        store.setStatus(Int(current.plan.status.code), record: current.recordID)
        let head = HTTPResponseHead(version: .http1_1, status: current.plan.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        switch current.plan.ending {
        case .drop(let limit), .stall(let limit):
            if current.buffer.readableBytes > limit {
                current.buffer.moveWriterIndex(to: current.buffer.readerIndex + limit)
            }
        case .complete, .closeAfterBody:
            break
        }
        current.start = .now()
        stream = current
        pump(context: context)
    }

    /// Writes as many chunks as the rate allows now, then schedules itself or finishes the response.
    private func pump(context: ChannelHandlerContext) {
        guard isActive, var current = stream else { return }
        while current.buffer.readableBytes > 0 {
            let count = min(current.chunkSize, current.buffer.readableBytes)
            if let rate = current.bytesPerSecond {
                let nanos = Double(current.sent + count) / Double(rate) * 1e9
                let due = current.start + .nanoseconds(Int64(min(nanos, 1e17)))
                if due > .now() {
                    stream = current
                    context.flush()
                    schedule(at: due, context: context) { handler, context in handler.pump(context: context) }
                    return
                }
            }
            guard let chunk = current.buffer.readSlice(length: count) else { break }
            current.sent += count
            store.addBytes(count, record: current.recordID)
            context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
        }
        stream = nil
        finish(current, context: context)
    }

    private func finish(_ finished: Stream, context: ChannelHandlerContext) {
        let channel = context.channel
        switch finished.plan.ending {
        case .complete:
            store.markComplete(record: finished.recordID)
            let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !finished.keepAlive {
                written.whenComplete { _ in channel.close(promise: nil) }
            }
        case .closeAfterBody:
            store.markComplete(record: finished.recordID)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        case .drop:
            // An empty write completes only after every earlier write reached the socket.
            let empty = context.channel.allocator.buffer(capacity: 0)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(empty)))).whenComplete { _ in
                channel.close(promise: nil)
            }
        case .stall:
            context.flush()
        }
    }

    private func schedule(
        in delay: TimeAmount, context: ChannelHandlerContext,
        _ body: @escaping (ImageRequestHandler, ChannelHandlerContext) -> Void
    ) {
        schedule(at: .now() + delay, context: context, body)
    }

    private func schedule(
        at deadline: NIODeadline, context: ChannelHandlerContext,
        _ body: @escaping (ImageRequestHandler, ChannelHandlerContext) -> Void
    ) {
        let bound = NIOLoopBound((self, context, body), eventLoop: context.eventLoop)
        scheduled = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context, body) = bound.value
            handler.scheduled = nil
            body(handler, context)
        }
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        let nanos = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return .nanoseconds(Int64(min(max(nanos, 0), 1e17)))
    }
}
