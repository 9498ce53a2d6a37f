import Foundation

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Wraps the URLSession provider and keeps weak references to the contexts it is given.
final class ContextWatchingProvider: ImageFetchDownloadProvider {
    private let inner = URLSessionImageFetchDownloadProvider()
    let contexts = Locked<[WeakContext]>([])

    final class WeakContext: @unchecked Sendable {  // `value` is only read by the test after the fetches
        weak var value: AnyObject?
        init(_ value: AnyObject) { self.value = value }
    }

    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        contexts.withLock { $0.append(WeakContext(context as AnyObject)) }
        return inner.imageFetchDownload(with: context)
    }
}
