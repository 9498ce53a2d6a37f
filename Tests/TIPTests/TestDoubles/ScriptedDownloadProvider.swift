import Foundation

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A provider whose downloads play a fixed script of client calls (no network), to test how the downloader
/// treats what real providers rarely do: errors after the last byte, broken contracts, foreign contexts.
final class ScriptedDownloadProvider: ImageFetchDownloadProvider {
    enum Step: Sendable {
        case start, hydrate, authorize
        case response(status: Int, headers: [String: String])
        case data(Data)
        case complete((any Error)?)
        /// Holds the script (without blocking a thread) until `condition` holds: a test steps the download.
        case waitUntil(@Sendable () -> Bool)
    }

    let steps: [Step]
    /// Makes downloads whose `context` is a different object (a broken provider).
    let returnsForeignContext: Bool
    let made = Locked(0)

    init(_ steps: [Step], returnsForeignContext: Bool = false) {
        self.steps = steps
        self.returnsForeignContext = returnsForeignContext
    }

    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        made.withLock { $0 += 1 }
        return ScriptedDownload(context: returnsForeignContext ? ForeignContext(context) : context, steps: steps)
    }

    /// Copies another context's values but is not it.
    private final class ForeignContext: ImageFetchDownloadContext {
        let originalRequest: URLRequest
        let client: any ImageFetchDownloadClient
        let downloadQueue: DispatchQueue
        init(_ other: any ImageFetchDownloadContext) {
            originalRequest = other.originalRequest
            client = other.client
            downloadQueue = other.downloadQueue
        }
        var hydratedRequest: URLRequest? { nil }
        var authorization: String? { nil }
    }
}

/// Plays the script on the context's queue; hydration and authorization wait for their completions.
final class ScriptedDownload: ImageFetchDownload {
    private let storedContext = Locked<(any ImageFetchDownloadContext)?>(nil)
    private let steps: [ScriptedDownloadProvider.Step]
    private let cancelled = Locked(false)
    let cancelDescriptions = Locked<[String]>([])

    init(context: any ImageFetchDownloadContext, steps: [ScriptedDownloadProvider.Step]) {
        storedContext.withLock { $0 = context }
        self.steps = steps
    }

    var context: (any ImageFetchDownloadContext)? { storedContext.withLock { $0 } }
    var finalURLRequest: URLRequest? { context?.hydratedRequest }
    private let storedPriority = Locked(Operation.QueuePriority.normal)
    var priority: Operation.QueuePriority {
        get { storedPriority.withLock { $0 } }
        set { storedPriority.withLock { $0 = newValue } }
    }

    func start() {
        guard let context else { return }
        context.downloadQueue.async { self.run(0, context) }
    }

    private func run(_ index: Int, _ context: any ImageFetchDownloadContext) {
        guard index < steps.count else { return }
        if cancelled.withLock({ $0 }) {
            context.client.download(
                self, didCompleteWithError: ImageFetchError.cancelled("scripted download cancelled"))
            return
        }
        let client = context.client
        let url = context.originalRequest.url ?? URL(fileURLWithPath: "/")
        let next: @Sendable () -> Void = { self.run(index + 1, context) }
        switch steps[index] {
        case .start:
            client.downloadDidStart(self)
            next()
        case .hydrate:
            client.download(self, hydrateRequest: context.originalRequest) { error in
                context.downloadQueue.async {
                    if let error { client.download(self, didCompleteWithError: error) } else { next() }
                }
            }
        case .authorize:
            client.download(self, authorizeRequest: context.hydratedRequest ?? context.originalRequest) { error in
                context.downloadQueue.async {
                    if let error { client.download(self, didCompleteWithError: error) } else { next() }
                }
            }
        case .response(let status, let headers):
            if let response = HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
            {
                client.download(self, didReceiveResponse: response)
            }
            next()
        case .data(let data):
            client.download(self, didReceiveData: data)
            next()
        case .complete(let error):
            client.download(self, didCompleteWithError: error)
        case .waitUntil(let condition):
            if condition() {
                next()
            } else {
                context.downloadQueue.asyncAfter(deadline: .now() + .milliseconds(2)) { self.run(index, context) }
            }
        }
    }

    func cancel(description: String) {
        cancelled.withLock { $0 = true }
        cancelDescriptions.withLock { $0.append(description) }
    }

    func discardContext() { storedContext.withLock { $0 = nil } }
}
