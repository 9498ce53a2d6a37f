import Foundation
import Synchronization

/// A finished thumbnail: the encoded bytes and their headers' values.
public struct Thumbnail: Sendable {
    /// The encoded image.
    public var body: Data
    /// The `Content-Type`.
    public var contentType: String
    /// The strong `ETag` (quoted).
    public var entityTag: String
}

/// The encoded responses, least recently used first out, bounded by their bytes: a warm request costs a
/// lookup, no decode, resize or encode. Thread-safe (one `Mutex` owns the state).
public final class ThumbnailResponseCache: Sendable {
    private final class Node {
        let key: String
        let thumbnail: Thumbnail
        var older: Node?
        var newer: Node?
        init(key: String, thumbnail: Thumbnail) {
            self.key = key
            self.thumbnail = thumbnail
        }
    }

    private struct State {
        var nodes: [String: Node] = [:]
        var newest: Node?
        var oldest: Node?
        var byteCount = 0
    }

    // The nodes are classes reached only under this lock.
    private let state = Mutex(State())
    /// The most bytes the cache keeps (bodies only); 0 keeps nothing.
    public let maxByteCount: Int

    /// A cache of at most `maxByteCount` body bytes.
    public init(maxByteCount: Int) { self.maxByteCount = maxByteCount }

    /// The bytes the cache holds now.
    public var byteCount: Int { state.withLock { $0.byteCount } }
    /// The number of thumbnails it holds now.
    public var count: Int { state.withLock { $0.nodes.count } }

    /// The thumbnail under `key`, made the most recently used; nil when absent.
    public func thumbnail(forKey key: String) -> Thumbnail? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            Self._unlink(node, in: &state)
            Self._pushNewest(node, in: &state)
            return node.thumbnail
        }
    }

    /// Keeps `thumbnail` under `key` (replacing any), then drops the least recently used ones until the
    /// bytes fit. A thumbnail larger than the whole cache is not kept.
    public func insert(_ thumbnail: Thumbnail, forKey key: String) {
        guard thumbnail.body.count <= maxByteCount else { return }
        state.withLock { state in
            if let old = state.nodes.removeValue(forKey: key) {
                Self._unlink(old, in: &state)
                state.byteCount -= old.thumbnail.body.count
            }
            let node = Node(key: key, thumbnail: thumbnail)
            state.nodes[key] = node
            Self._pushNewest(node, in: &state)
            state.byteCount += thumbnail.body.count
            while state.byteCount > maxByteCount, let oldest = state.oldest {
                Self._unlink(oldest, in: &state)
                state.nodes[oldest.key] = nil
                state.byteCount -= oldest.thumbnail.body.count
            }
        }
    }

    /// The keys from most to least recently used (for tests and diagnostics).
    public var keysByRecency: [String] {
        state.withLock { state in
            var keys: [String] = []
            var node = state.newest
            while let current = node {
                keys.append(current.key)
                node = current.older
            }
            return keys
        }
    }

    private static func _unlink(_ node: Node, in state: inout State) {
        if let newer = node.newer { newer.older = node.older } else { state.newest = node.older }
        if let older = node.older { older.newer = node.newer } else { state.oldest = node.newer }
        node.newer = nil
        node.older = nil
    }

    private static func _pushNewest(_ node: Node, in state: inout State) {
        node.older = state.newest
        state.newest?.newer = node
        state.newest = node
        if state.oldest == nil { state.oldest = node }
    }
}
