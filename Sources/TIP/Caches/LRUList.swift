/// An ordered map from keys to values, most recently used first, with O(1) insert, lookup, touch and
/// removal at either end. The caches build their recency order and eviction on it.
///
/// ```swift
/// let lru = LRUList<String, Int>()
/// lru.insertAtHead("a", 1)
/// lru.touch("a")               // moves "a" to the head
/// let oldest = lru.removeTail() // ("a", 1)
/// ```
///
/// A reference type, not thread-safe: each cache owns one and guards it with its own lock or queue.
/// Invariants: `count == keys.count`; every key appears once; `head` is the most recently used.
final class LRUList<Key: Hashable, Value> {
    private final class Node {
        let key: Key
        var value: Value
        // The dictionary is the only owner of nodes; links never own, so releasing a long list never
        // recurses and a removed node cannot keep others alive.
        unowned(unsafe) var newer: Node?
        unowned(unsafe) var older: Node?

        init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    private var nodes: [Key: Node] = [:]
    // `head` is the newest entry, `tail` the oldest; both are also in `nodes`.
    private unowned(unsafe) var head: Node?
    private unowned(unsafe) var tail: Node?

    /// Creates an empty list.
    init() {}

    /// Number of entries.
    var count: Int { nodes.count }
    /// Whether there are no entries.
    var isEmpty: Bool { nodes.isEmpty }

    /// The value for `key` without changing the order.
    func peek(_ key: Key) -> Value? { nodes[key]?.value }

    /// Whether `key` is present.
    func contains(_ key: Key) -> Bool { nodes[key] != nil }

    /// The most recently used entry.
    var first: (key: Key, value: Value)? { head.map { ($0.key, $0.value) } }
    /// The least recently used entry.
    var last: (key: Key, value: Value)? { tail.map { ($0.key, $0.value) } }

    /// Inserts `value` for `key` as the most recently used, replacing any previous value (and its
    /// position). Returns the previous value.
    @discardableResult
    func insertAtHead(_ key: Key, _ value: Value) -> Value? {
        let node = Node(key: key, value: value)
        // One hash of the key: the replaced node, if any, leaves the order here.
        let previous = nodes.updateValue(node, forKey: key)
        if let previous { unlink(previous) }
        link(atHead: node)
        return previous?.value
    }

    /// Inserts `value` for `key` as the least recently used (for entries loaded oldest last).
    @discardableResult
    func insertAtTail(_ key: Key, _ value: Value) -> Value? {
        let node = Node(key: key, value: value)
        let previous = nodes.updateValue(node, forKey: key)
        if let previous { unlink(previous) }
        if let tail {
            node.newer = tail
            tail.older = node
            self.tail = node
        } else {
            head = node
            tail = node
        }
        return previous?.value
    }

    /// Makes room for `count` entries in all (a list about to be filled from a manifest).
    func reserveCapacity(_ count: Int) { nodes.reserveCapacity(count) }

    /// Moves `key` to the head and returns its value; nil when absent.
    @discardableResult
    func touch(_ key: Key) -> Value? {
        guard let node = nodes[key] else { return nil }
        if node !== head {
            unlink(node)
            link(atHead: node)
        }
        return node.value
    }

    /// Replaces the value for `key` in place (order unchanged). Returns false when absent.
    @discardableResult
    func updateValue(_ value: Value, for key: Key) -> Bool {
        guard let node = nodes[key] else { return false }
        node.value = value
        return true
    }

    /// Removes `key` and returns its value.
    @discardableResult
    func remove(_ key: Key) -> Value? {
        guard let node = nodes.removeValue(forKey: key) else { return nil }
        unlink(node)
        return node.value
    }

    /// Removes and returns the least recently used entry.
    func removeTail() -> (key: Key, value: Value)? {
        guard let tail else { return nil }
        let entry = (key: tail.key, value: tail.value)
        remove(entry.key)
        return entry
    }

    /// Removes everything.
    func removeAll() {
        nodes.removeAll()
        head = nil
        tail = nil
    }

    /// Entries from most to least recently used.
    var entriesNewestFirst: [(key: Key, value: Value)] {
        var out: [(key: Key, value: Value)] = []
        out.reserveCapacity(count)
        var node = head
        while let current = node {
            out.append((current.key, current.value))
            node = current.older
        }
        return out
    }

    private func link(atHead node: Node) {
        node.newer = nil
        node.older = head
        if let head {
            head.newer = node
        } else {
            tail = node
        }
        head = node
    }

    private func unlink(_ node: Node) {
        let newer = node.newer
        let older = node.older
        if let older { older.newer = newer } else { tail = newer }
        if let newer { newer.older = older } else { head = older }
        node.newer = nil
        node.older = nil
    }
}
