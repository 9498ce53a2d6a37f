import Foundation
import TIPImageServer
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one end-to-end fetch ended: exactly one of `result` and `error`, and how many completions arrived.
struct HardeningOutcome: @unchecked Sendable {  // immutable after the fetch; `any Error` is not Sendable-checked
    var result: ImageFetchResult?
    var error: (any Error)?
    var completions: Int

    var fetchError: ImageFetchError? { error as? ImageFetchError }
}

/// An isolated configuration, pipeline, embedded image server and problem recorder for the end-to-end
/// hardening tests (every fetch goes through `ImagePipeline.operation(with:context:completion:)`).
final class HardeningEnvironment: Sendable {
    let configuration: GlobalConfiguration
    let root: URL
    let server: TIPImageServer
    let pipeline: ImagePipeline
    let problems = RecordingProblemObserver()

    /// `provider` (default: the configuration's default) with `requestTimeout` (default 60 s) downloads.
    init(
        _ name: String = #function, provider: ShippedDownloadProvider? = nil, requestTimeout: TimeInterval? = nil,
        prepare: (GlobalConfiguration, URL) throws -> Void = { _, _ in }
    ) async throws {
        let (configuration, root) = try makeTestConfiguration(name)
        self.configuration = configuration
        self.root = root
        configuration.problemObserver = problems
        if provider != nil || requestTimeout != nil {
            configuration.imageFetchDownloadProvider = (provider ?? .curl).make(requestTimeout: requestTimeout ?? 60)
        }
        try prepare(configuration, root)
        server = TIPImageServer()
        try await server.start()
        let identifier = "hard-" + UUID().uuidString.prefix(8).lowercased()
        guard let pipeline = ImagePipeline(identifier: identifier, configuration: configuration) else {
            throw POSIXError(.EEXIST)
        }
        self.pipeline = pipeline
        pipeline.diskCache.waitUntilManifestLoaded()
    }

    /// Stops the server and deletes the temporary directory.
    func tearDown() async {
        await server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// A full-size request for `path` on the server.
    func request(_ path: String, sources: ImageFetchLoadingSources = .all) -> GenericImageFetchRequest {
        var request = GenericImageFetchRequest(imageURL: server.url(for: path))
        request.loadingSources = sources
        return request
    }

    /// The identifier the pipeline caches `path` under.
    func identifier(_ path: String) -> String { server.url(for: path).absoluteString }

    /// Runs `request` through `operation(with:context:completion:)` and waits for its completion, then a
    /// little longer to catch a second completion.
    func fetch(_ request: any ImageFetchRequest, timeout: Duration = .seconds(300)) async -> HardeningOutcome {
        await Self.fetch(request, in: pipeline, timeout: timeout)
    }

    /// Runs `request` in `pipeline`; see `fetch(_:timeout:)`.
    static func fetch(
        _ request: any ImageFetchRequest, in pipeline: ImagePipeline,
        timeout: Duration = .seconds(300)
    ) async -> HardeningOutcome {
        let box = Locked(HardeningOutcome(result: nil, error: nil, completions: 0))
        let operation = pipeline.operation(with: request) { result, error in
            box.withLock {
                $0.completions += 1
                if $0.completions == 1 { $0.result = result; $0.error = error }
            }
        }
        pipeline.fetchImage(with: operation)
        _ = await eventually(timeout: timeout) { box.withLock { $0.completions > 0 } }
        try? await Task.sleep(for: .milliseconds(20))
        return box.withLock { $0 }
    }

    /// Checks the caches after a fault: a fetch that may not use the network returns nothing or exactly
    /// `original` (the disk file's SHA-1 and the decoded pixels), memory and disk separately; a partial on
    /// disk is a prefix of `original`. Returns whether a complete image was cached.
    @discardableResult
    func expectCachesHoldNothingWrong(
        _ path: String, original: Data,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        let identifier = identifier(path)
        let disk = pipeline.diskCache.entry(withIdentifier: identifier)
        if let complete = disk?.complete {
            let bytes = pipeline.diskCache.completeData(of: complete)
            #expect(
                bytes.map { SHA1.hexDigest(of: $0) } == SHA1.hexDigest(of: original),
                "the disk cache holds a wrong complete image for \(path)", sourceLocation: sourceLocation)
        }
        if let partial = disk?.partial, let bytes = pipeline.diskCache.data(of: partial) {
            #expect(
                bytes.count <= original.count && original.prefix(bytes.count) == bytes,
                "the disk partial for \(path) is not a prefix of the image", sourceLocation: sourceLocation)
        }
        if let memory = pipeline.memoryCache.entry(withIdentifier: identifier, touch: false) {
            if let complete = memory.complete {
                #expect(
                    complete.data == original, "the memory cache holds wrong bytes for \(path)",
                    sourceLocation: sourceLocation)
            }
            if let partial = memory.partial {
                #expect(partial.byteCount <= Int64(original.count), sourceLocation: sourceLocation)
            }
        }
        let expected = try? CodecCatalogue.shared.decodeImage(original).container.image
        var cached = false
        for sources in [ImageFetchLoadingSources([.memoryCache, .diskCache]), .diskCache] {
            if sources == .diskCache { pipeline.clearMemoryCaches() }
            let outcome = await fetch(request(path, sources: sources))
            #expect(outcome.completions == 1, "completions: \(outcome.completions)", sourceLocation: sourceLocation)
            guard let image = outcome.result?.imageContainer.image else { continue }
            cached = true
            #expect(
                outcome.result?.imageSource != .network && outcome.result?.imageSource != .networkResumed,
                sourceLocation: sourceLocation)
            if let expected {
                #expect(
                    image.width == expected.width && image.height == expected.height, sourceLocation: sourceLocation)
                if image.width == expected.width && image.height == expected.height {
                    #expect(
                        ImageComparison.maxDifference(image, expected) == 0,
                        "the cached image for \(path) decodes to other pixels", sourceLocation: sourceLocation)
                }
            }
        }
        return cached
    }

    /// A JPEG of `width` x `height` made for these tests (distinct per `seed`).
    static func jpeg(width: Int = 640, height: Int = 480, seed: UInt64 = 1) throws -> Data {
        try JPEGTestSupport.jpeg(width: width, height: height, seed: seed).data
    }

    /// Whether this process may mount file systems (root with CAP_SYS_ADMIN outside a locked-down container).
    static func mountTmpfs(at directory: URL, size: String) -> Bool {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return mount("tmpfs", directory.path, "tmpfs", 0, "size=\(size),mode=0700") == 0
    }

    /// Detaches whatever is mounted at `directory` (harmless when nothing is).
    static func unmount(_ directory: URL) {
        _ = umount2(directory.path, Int32(MNT_DETACH))
    }
}

/// A TCP listener on 127.0.0.1 that accepts each connection, reads the request head and closes the socket
/// without sending a byte: a connection dropped before any header.
final class SilentClosingServer: @unchecked Sendable {  // `listener` is set once in init, then only read
    let port: UInt16
    private let listener: Int32
    private let stopped = Locked(false)

    init() throws {
        (listener, port) = try LoopbackListener.open()
        Thread.detachNewThread { [listener] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    close(listener)  // stopped: closed here, after the last accept (see stop())
                    return
                }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = recv(client, &buffer, buffer.count, 0)
                close(client)
            }
        }
    }

    func url(for path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Shuts the listener down; its accept thread closes it. Closed here, the number could be reused by another
    /// test's listener before that thread's next `accept`, which would swallow the other test's connections.
    /// Calling it again does nothing (the number may belong to another socket by then).
    func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
        }
    }
}
