import Foundation

/// Hands a shared download's events to its members on their own queues, with as few queue hops as ordering
/// allows: one queued block per member queue (members sharing a queue are called in order by the same
/// block), and byte updates merged while that block waits (a busy queue gets fewer, larger updates).
///
/// Owned by one `SharedImageDownload` and used on the downloader's queue only (a value type; the mailboxes
/// it hands to member queues are locked).
struct ImageDownloadDelivery {
    /// The update waiting on one member queue for the members on that queue; nil inside once delivered.
    typealias Mailbox = Locked<MailboxContent?>

    /// The members a mailbox delivers to, and their (merged) update.
    struct MailboxContent {
        var delegates: [any ImageDownloadDelegate]
        var update: ImageDownloadUpdate

        /// Merges a later `update`: counts add up, everything else is the newest.
        mutating func merge(_ later: ImageDownloadUpdate) {
            let total = update.appendedByteCount + later.appendedByteCount
            let furthest = max(update.appendResult, later.appendResult)
            update = later
            update.appendedByteCount = total
            update.appendResult = furthest
        }
    }

    typealias QueueGroup = (queue: DispatchQueue, delegates: [any ImageDownloadDelegate])

    /// The members grouped by queue (in member order); rebuilt after membership changes.
    private var groups: [QueueGroup]?
    /// The open mailbox of each group (same positions as `groups`).
    private var mailboxes: [Mailbox?] = []

    /// Members joined or left: regroup, and let no later bytes join updates queued before the change (a
    /// joiner's catch-up already counts them; a leaver's completion must come last).
    mutating func membersDidChange() {
        groups = nil
        closeBatches()
    }

    /// Lets no later bytes join the updates already queued: whatever is sent next comes after them.
    mutating func closeBatches() {
        for index in mailboxes.indices { mailboxes[index] = nil }
    }

    /// Hands `update` to `members` (the download's current members, in order).
    mutating func deliver(_ update: ImageDownloadUpdate, to members: @autoclosure () -> [any ImageDownloadDelegate],
                          handle: ImageDownloadHandle) {
        let groups = currentGroups(members())
        if mailboxes.count != groups.count { mailboxes = Array(repeating: nil, count: groups.count) }
        for (index, group) in groups.enumerated() {
            if let mailbox = mailboxes[index], mailbox.withLock({ waiting -> Bool in
                guard waiting != nil else { return false }  // already delivered
                waiting?.merge(update)
                return true
            }) {
                continue
            }
            let mailbox = Mailbox(MailboxContent(delegates: group.delegates, update: update))
            mailboxes[index] = mailbox
            group.queue.async {
                guard let waiting = mailbox.withLock({ waiting in
                    defer { waiting = nil }
                    return waiting
                }) else { return }
                for delegate in waiting.delegates { delegate.imageDownload(handle, didUpdate: waiting.update) }
            }
        }
    }

    private mutating func currentGroups(_ members: [any ImageDownloadDelegate]) -> [QueueGroup] {
        if let groups { return groups }
        let made = Self.group(members)
        groups = made
        return made
    }

    /// `delegates` grouped by queue identity, groups and members in their original order.
    static func group(_ delegates: [any ImageDownloadDelegate]) -> [QueueGroup] {
        grouped(delegates, queue: \.imageDownloadQueue).map { (queue: $0.queue, delegates: $0.items) }
    }

    /// Runs `body` for each delegate on its queue, one queued block per distinct queue; `body` also gets the
    /// delegate's position in `delegates`.
    static func dispatch(
        to delegates: [any ImageDownloadDelegate], handle: ImageDownloadHandle,
        _ body: @escaping @Sendable (any ImageDownloadDelegate, Int, ImageDownloadHandle) -> Void
    ) {
        for group in grouped(delegates.enumerated().map { $0 }, queue: \.element.imageDownloadQueue) {
            let members = group.items
            group.queue.async { for member in members { body(member.element, member.offset, handle) } }
        }
    }

    /// `items` grouped by the identity of their queue, groups and items in their original order.
    private static func grouped<Item>(_ items: [Item], queue: (Item) -> DispatchQueue) -> [(queue: DispatchQueue, items: [Item])] {
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
