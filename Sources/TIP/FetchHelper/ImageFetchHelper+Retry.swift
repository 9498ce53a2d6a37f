import Foundation

extension ImageFetchHelper {
    /// Every live helper, held weakly (TIP reaches them with a notification).
    final class Registry: Sendable {
        private let helpers = Locked<[WeakImageFetchHelper]>([])

        func add(_ helper: ImageFetchHelper) {
            helpers.withLock { list in
                list.removeAll { $0.helper == nil }
                list.append(WeakImageFetchHelper(helper))
            }
        }

        var live: [ImageFetchHelper] {
            helpers.withLock { list in
                list.removeAll { $0.helper == nil }
                return list.compactMap(\.helper)
            }
        }
    }

    static let registry = Registry()

    /// Asks every helper whose last fetch failed (and that is idle) to fetch again, each on its callback queue —
    /// for example when the network comes back.
    public static func notifyAllFetchHelpersToRetryFailedLoads() {
        for helper in registry.live {
            helper.configuration.callbackQueue.async { [weak helper] in helper?.retryFailedLoad() }
        }
    }

    /// Fetches again after a failure, when idle.
    func retryFailedLoad() {
        let failed = guarded.withLock { $0.fetchError != nil && $0.operation == nil }
        if failed { refetch() }
    }
}
