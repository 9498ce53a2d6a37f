import Foundation

/// The fetches taking part in one shared download, and the delivery of its events to them on their own queues
/// with as few queue hops as ordering allows: one queued block per member queue (members sharing a queue are
/// called in order by the same block), and byte updates merged while that block waits (a busy queue gets fewer,
/// larger updates).
///
/// Owned by one `SharedImageDownload` and used on the downloader's queue only (a value type; the mailboxes it
/// hands to member queues are locked).
struct ImageDownloadMembers {
    /// A fetch taking part.
    struct Member {
        let member: any ImageDownloadMember
        var request: ImageDownloadRequest
        var priority: ImageFetchPriority
        var id: ObjectIdentifier { ObjectIdentifier(member) }
    }

    /// The update waiting on one member queue for the members on that queue; nil inside once delivered.
    private typealias Mailbox = Locked<MailboxContent?>

    /// The members a mailbox delivers to, and their (merged) update.
    private struct MailboxContent {
        var members: [any ImageDownloadMember]
        var update: ImageDownloadUpdate

        /// Merges a later `update`: counts add up, everything else is the newest.
        mutating func merge(_ later: ImageDownloadUpdate) {
            let total = update.appendedByteCount + later.appendedByteCount
            update = later
            update.appendedByteCount = total
        }
    }

    private typealias QueueGroup = (queue: DispatchQueue, members: [any ImageDownloadMember])

    let handle: ImageDownloadHandle
    private(set) var all: [Member] = []
    /// The members grouped by queue (in member order); rebuilt after membership changes.
    private var groups: [QueueGroup]?
    /// The open mailbox of each group (same positions as `groups`).
    private var mailboxes: [Mailbox?] = []

    init(handle: ImageDownloadHandle) {
        self.handle = handle
    }

    var isEmpty: Bool { all.isEmpty }
    var count: Int { all.count }
    /// The first member (hydration and authorization blocks get it), if any.
    var first: (any ImageDownloadMember)? { all.first?.member }

    /// The priority the download runs at: the highest of its members', at least `veryLow + 1`.
    var priority: ImageFetchPriority {
        max(all.map(\.priority).max() ?? .normal, ImageFetchPriority.downloadFloor)
    }

    func contains(_ id: ObjectIdentifier) -> Bool { all.contains { $0.id == id } }

    // MARK: Membership

    /// Adds `member`. Bytes already delivered to others never reach it through a queued update: its catch-up
    /// (sent by the caller) already counts them.
    mutating func add(_ member: any ImageDownloadMember, request: ImageDownloadRequest) {
        all.append(Member(member: member, request: request, priority: member.imageDownloadPriority))
        membersDidChange()
    }

    /// Takes `id` out; nil when it is not a member.
    mutating func remove(_ id: ObjectIdentifier) -> Member? {
        guard let index = all.firstIndex(where: { $0.id == id }) else { return nil }
        defer { membersDidChange() }
        return all.remove(at: index)
    }

    /// Takes every member out (the download ended).
    mutating func removeAll() -> [any ImageDownloadMember] {
        defer {
            all = []
            membersDidChange()
        }
        return all.map(\.member)
    }

    /// `id` renders nothing while the bytes arrive.
    mutating func clearRendering(of id: ObjectIdentifier) {
        guard let index = all.firstIndex(where: { $0.id == id }) else { return }
        all[index].request.rendering = nil
    }

    /// Re-reads `id`'s priority.
    mutating func priorityDidChange(for id: ObjectIdentifier) {
        guard let index = all.firstIndex(where: { $0.id == id }) else { return }
        all[index].priority = all[index].member.imageDownloadPriority
    }

    /// Members joined or left: regroup, and let no later bytes join updates queued before the change (a
    /// joiner's catch-up already counts them; a leaver's completion must come last).
    private mutating func membersDidChange() {
        groups = nil
        closeBatches()
    }

    /// Lets no later bytes join the updates already queued: whatever is sent next comes after them.
    private mutating func closeBatches() {
        for index in mailboxes.indices { mailboxes[index] = nil }
    }

    // MARK: Delivery

    /// Hands `update` to every member.
    mutating func deliver(_ update: ImageDownloadUpdate) {
        let groups = currentGroups()
        if mailboxes.count != groups.count { mailboxes = Array(repeating: nil, count: groups.count) }
        let handle = self.handle
        for (index, group) in groups.enumerated() {
            if let mailbox = mailboxes[index],
                mailbox.withLock({ waiting -> Bool in
                    guard waiting != nil else { return false }  // already delivered
                    waiting?.merge(update)
                    return true
                })
            {
                continue
            }
            let mailbox = Mailbox(MailboxContent(members: group.members, update: update))
            mailboxes[index] = mailbox
            group.queue.async {
                guard
                    let waiting = mailbox.withLock({ waiting in
                        defer { waiting = nil }
                        return waiting
                    })
                else { return }
                for member in waiting.members { member.imageDownload(handle, didUpdate: waiting.update) }
            }
        }
    }

    /// Runs `body` for every member on its queue, after anything already queued for it.
    mutating func forEach(_ body: @escaping @Sendable (any ImageDownloadMember, ImageDownloadHandle) -> Void) {
        closeBatches()
        Self.dispatch(to: all.map(\.member), handle: handle) { member, _, handle in body(member, handle) }
    }

    private mutating func currentGroups() -> [QueueGroup] {
        if let groups { return groups }
        let made = Self.grouped(all.map(\.member), queue: \.imageDownloadQueue).map {
            (queue: $0.queue, members: $0.items)
        }
        groups = made
        return made
    }

    /// Runs `body` for each member on its queue, one queued block per distinct queue; `body` also gets the
    /// member's position in `members`.
    static func dispatch(
        to members: [any ImageDownloadMember], handle: ImageDownloadHandle,
        _ body: @escaping @Sendable (any ImageDownloadMember, Int, ImageDownloadHandle) -> Void
    ) {
        for group in grouped(members.enumerated().map { $0 }, queue: \.element.imageDownloadQueue) {
            let items = group.items
            group.queue.async { for item in items { body(item.element, item.offset, handle) } }
        }
    }

    /// `items` grouped by the identity of their queue, groups and items in their original order.
    private static func grouped<Item>(_ items: [Item], queue: (Item) -> DispatchQueue) -> [(
        queue: DispatchQueue, items: [Item]
    )] {
        var groups: [(queue: DispatchQueue, items: [Item])] = []
        var positions: [ObjectIdentifier: Int] = [:]
        for item in items {
            let itemQueue = queue(item)
            if let position = positions[ObjectIdentifier(itemQueue)] {
                groups[position].items.append(item)
            } else {
                positions[ObjectIdentifier(itemQueue)] = groups.count
                groups.append((itemQueue, [item]))
            }
        }
        return groups
    }
}
