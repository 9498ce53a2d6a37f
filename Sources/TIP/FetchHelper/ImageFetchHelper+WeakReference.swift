/// A weak, lock-guarded reference to a helper, for the objects the helper hands to operations, pipelines and
/// the retry registry (they must not keep it alive).
final class WeakImageFetchHelper: Sendable {
    private struct Box { weak var helper: ImageFetchHelper? }
    private let box = Locked(Box())

    init(_ helper: ImageFetchHelper? = nil) {
        box.withLock { $0.helper = helper }
    }

    /// The helper, while it lives.
    var helper: ImageFetchHelper? { box.withLock { $0.helper } }

    /// Points at `helper`.
    func attach(_ helper: ImageFetchHelper) {
        box.withLock { $0.helper = helper }
    }
}
