import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import TIP

/// A provider that wraps the URLSession provider and records what the downloader asks of its downloads.
final class RecordingDownloadProvider: ImageFetchDownloadProvider {
    private let inner = URLSessionImageFetchDownloadProvider()
    let downloads = Locked<[RecordingDownload]>([])

    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        let download = RecordingDownload(inner.imageFetchDownload(with: context))
        downloads.withLock { $0.append(download) }
        return download
    }
}

/// Forwards to a real download, recording priority changes.
final class RecordingDownload: ImageFetchDownload {
    private let inner: any ImageFetchDownload
    let priorities = Locked<[Operation.QueuePriority]>([])

    init(_ inner: any ImageFetchDownload) { self.inner = inner }

    var context: (any ImageFetchDownloadContext)? { inner.context }
    var finalURLRequest: URLRequest? { inner.finalURLRequest }
    var priority: Operation.QueuePriority {
        get { inner.priority }
        set {
            priorities.withLock { $0.append(newValue) }
            inner.priority = newValue
        }
    }
    func start() { inner.start() }
    func cancel(description: String) { inner.cancel(description: description) }
    func discardContext() { inner.discardContext() }
}
