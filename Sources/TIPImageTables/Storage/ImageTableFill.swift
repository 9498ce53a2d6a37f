import TIP

/// One entity's fill in flight for a table from one source: every request for the entity and that source while
/// it runs joins it (a request for another source gets a fill of its own).
final class ImageTableFill: @unchecked Sendable {
    /// What a fill is for: the entity and its source.
    struct Key: Hashable, Sendable {
        let entity: String
        let source: String
    }

    /// Someone waiting for the fill; `deliver` is called once, from any thread.
    struct Waiter {
        let id: UInt64
        let deliver: @Sendable (Result<Bitmap, ImageTableError>) -> Void
    }

    // Both are guarded by the owning table's state lock.
    var waiters: [Waiter] = []
    /// The source fetch, once started; cancelled when the last waiter leaves.
    var operation: ImageFetchOperation?
}
