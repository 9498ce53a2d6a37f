import Dispatch
import Foundation

// The settings where the port differs from TIP's defaults so that a Linux program without a main loop, or
// without a logger of its own, is not left hanging or in silence (README: "Differences from TIP's defaults").
extension GlobalConfiguration {
    /// The logger a configuration starts with: swift-log, label `TIP`, messages of ``PipelineLogLevel/warning``
    /// and more severe. An application that bootstraps `LoggingSystem` gets them through its handler;
    /// otherwise swift-log writes them to stderr. `GlobalConfiguration.shared.logger = nil` silences the pipeline.
    public static var defaultLogger: any PipelineLogger { DefaultPipelineLogger(minimumLevel: .warning) }

    /// The label of the serial queue the library owns and delivers callbacks on by default (Linux).
    public static let defaultCallbackQueueLabel = "TIP.callbacks"

    /// A new default callback queue: on Linux a serial queue of the library's own (nothing has to service it);
    /// elsewhere `DispatchQueue.main`, as TIP.
    static func makeDefaultCallbackQueue() -> DispatchQueue {
        #if canImport(Darwin)
        return .main
        #else
        return DispatchQueue(label: defaultCallbackQueueLabel, qos: .userInitiated)
        #endif
    }

    /// The download provider used when none is set (made on first use, shared by every configuration): on Linux
    /// ``CurlImageFetchDownloadProvider``, since FoundationNetworking's URLSession aborts the process on some valid
    /// responses (see ``URLSessionImageFetchDownloadProvider``); elsewhere ``URLSessionImageFetchDownloadProvider``,
    /// as TIP.
    static let defaultDownloadProvider: any ImageFetchDownloadProvider = {
        #if canImport(Darwin)
        URLSessionImageFetchDownloadProvider()
        #else
        CurlImageFetchDownloadProvider()
        #endif
    }()

    /// Runs `work` on ``callbackQueue``, watched: callbacks left waiting there get one warning per queue (within 5
    /// to 10 s).
    func dispatchToCallbackQueue(_ work: @escaping @Sendable () -> Void) {
        let queue = callbackQueue
        callbackWatchdog.async(on: queue, key: Self.token(of: queue), execute: work)
    }

    /// Logs, once per queue, that callbacks wait on a queue that nothing services.
    func warnCallbackQueueNotServiced(label: String) {
        let seconds = callbackWatchdog.interval
        let hint =
            label == DispatchQueue.main.label
            ? """
            run dispatchMain() or RunLoop.main.run(), or set GlobalConfiguration.shared.callbackQueue to a queue \
            of your own
            """
            : "make sure nothing blocks that queue, or set GlobalConfiguration.shared.callbackQueue to another queue"
        log(
            .warning,
            "TIP callbacks have waited \(Self.format(seconds)) s on the queue '\(label)' "
                + "(GlobalConfiguration.callbackQueue) without running: nothing services that queue; \(hint). "
                + "async fetches (fetchImage(for:), fetchEvents(for:)) do not need it.")
    }

    /// Changing the caches root does not move live pipelines: say so when some are live.
    func warnIfLivePipelinesKeep(_ oldRoot: URL, whenRootBecomes newRoot: URL) {
        // Compared as paths: the same directory set again may come back with a trailing slash once it exists.
        guard oldRoot.standardizedFileURL.path != newRoot.standardizedFileURL.path else { return }
        let live = registry.all.map(\.identifier)
        guard !live.isEmpty else { return }
        log(
            .warning,
            "GlobalConfiguration.cachesRootDirectory changed to \(newRoot.path) while \(live.count) image "
                + "pipeline(s) are live (\(live.joined(separator: ", "))): they keep their disk caches under "
                + "\(oldRoot.path); "
                + "only pipelines created from now on use the new root. Set it before creating any pipeline.")
    }

    /// Beyond TIP: the most pixels (width x height) a fetch decodes; a larger image fails with
    /// `ImageFetchError.Code.couldNotDecodeImage` from its header, before any large allocation, and is not
    /// cached. A request's own `maximumPixelCount` overrides it. Values below 1 restore the default, 100
    /// megapixels (``ImageDecodingOptions/defaultMaximumPixelCount``). Applies to fetches started afterwards.
    public var maximumPixelCount: Int {
        get { settings.withLock { $0.maximumPixelCount } }
        set {
            settings.withLock {
                $0.maximumPixelCount = newValue >= 1 ? newValue : ImageDecodingOptions.defaultMaximumPixelCount
            }
        }
    }

    private static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}
