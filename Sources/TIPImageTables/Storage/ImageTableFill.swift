import TIP

/// One entity's fill in flight for a table: every request for the entity while it runs joins it.
final class ImageTableFill: @unchecked Sendable {
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
