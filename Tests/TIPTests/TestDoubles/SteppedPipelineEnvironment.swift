import Foundation

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An isolated configuration and pipeline whose downloads the test steps by hand (``SteppedDownloadProvider``),
/// with a problem recorder installed.
final class SteppedPipelineEnvironment: PipelineTestEnvironment, Sendable {
    let configuration: GlobalConfiguration
    let root: URL
    let provider = SteppedDownloadProvider()
    let pipeline: ImagePipeline
    let problems = RecordingProblemObserver()

    /// `clock`: the configuration's clock (TTLs, HTTP freshness); nil: the system's.
    init(_ name: String = #function, clock: TestClock? = nil) throws {
        let (configuration, root) = try makeTestConfiguration(name, clock: clock)
        self.configuration = configuration
        self.root = root
        configuration.imageFetchDownloadProvider = provider
        configuration.problemObserver = problems
        let identifier = "stepped-" + UUID().uuidString.prefix(8).lowercased()
        guard let pipeline = ImagePipeline(identifier: identifier, configuration: configuration) else {
            throw POSIXError(.EEXIST)
        }
        self.pipeline = pipeline
        pipeline.diskCache.waitUntilManifestLoaded()
    }

    /// A downloader request for ``url(_:)`` of `name`, cached in the pipeline unless `cached` is false.
    func request(_ name: String, cached: Bool = true) -> ImageDownloadRequest {
        ImageDownloadRequest(url: Self.url(name), pipeline: cached ? pipeline : nil)
    }

    /// Runs a completion-API fetch of `request`, answers its download with `data` (a resumable 200) and returns
    /// the fetch's result or error once it finished.
    func fetch(_ request: GenericImageFetchRequest, serving data: Data) async throws -> (
        result: ImageFetchResult?, error: (any Error)?
    ) {
        let outcome = Locked<(ImageFetchResult?, (any Error)?)>((nil, nil))
        let operation = pipeline.operation(with: request) { result, error in outcome.withLock { $0 = (result, error) } }
        pipeline.fetchImage(with: operation)
        try await provider.next().serve(data)
        _ = await eventually { operation.isFinished }
        return outcome.withLock { $0 }
    }

    /// Runs a completion-API fetch of `request` that needs no download (a cache hit, or a failure) and returns its
    /// result or error once it finished.
    func fetchCached(_ request: any ImageFetchRequest) async -> (result: ImageFetchResult?, error: (any Error)?) {
        let outcome = Locked<(ImageFetchResult?, (any Error)?)>((nil, nil))
        let operation = pipeline.operation(with: request) { result, error in outcome.withLock { $0 = (result, error) } }
        pipeline.fetchImage(with: operation)
        _ = await eventually { operation.isFinished }
        return outcome.withLock { $0 }
    }

    /// Whether `request` is answered synchronously by the rendered cache (fetched on the callback queue); a fetch that
    /// was not is cancelled, and has ended when this returns.
    func isSynchronousHit(_ request: any ImageFetchRequest) async -> Bool {
        // The fetch queue is held while the fetch is started and looked at: a fetch that was not answered inside
        // `fetchImage(with:)` cannot run (and, from the memory cache, finish) before the check on a loaded machine.
        let queue = configuration.fetchOperationQueue
        let (operation, finished) = configuration.callbackQueue.sync {
            queue.isSuspended = true
            defer { queue.isSuspended = false }
            let operation = pipeline.operation(with: request) { _, _ in }
            pipeline.fetchImage(with: operation)
            return (operation, operation.isFinished)
        }
        if finished { return true }
        operation.cancel()
        _ = await eventually { operation.isFinished }
        return false
    }

    /// Deletes the temporary directory.
    func tearDown() {
        try? FileManager.default.removeItem(at: root)
    }

    /// A URL no server answers (the stepped provider does).
    static func url(_ name: String) -> URL {
        URL(string: "http://images.test/\(name)")!  // a literal, valid URL
    }

    /// The headers of a resumable 200 for a body of `length` bytes.
    static func resumableHeaders(length: Int, entityTag: String, type: String = "image/jpeg") -> [String: String] {
        ["Content-Length": "\(length)", "ETag": entityTag, "Accept-Ranges": "bytes", "Content-Type": type]
    }

    /// The headers of a 206 for bytes `first...` of a body of `length` bytes.
    static func rangeHeaders(from first: Int, length: Int, entityTag: String, type: String = "image/jpeg") -> [String:
        String]
    {
        [
            "Content-Length": "\(length - first)", "Content-Range": "bytes \(first)-\(length - 1)/\(length)",
            "ETag": entityTag, "Accept-Ranges": "bytes", "Content-Type": type,
        ]
    }
}
