import Dispatch
import Foundation

/// Settings and budgets shared by every ``ImagePipeline`` in the process (TIP's `TIPGlobalConfiguration`).
///
/// ```swift
/// let config = GlobalConfiguration.shared
/// config.maxBytesForAllMemoryCaches = 64 * 1024 * 1024
/// config.callbackQueue = DispatchQueue(label: "images")   // servers: not the main queue
/// ```
///
/// Budgets are shared by all live pipelines of one cache kind. For bytes: negative restores the
/// default, 0 disables the kind, positive is the limit. For counts: negative restores the default,
/// 0 means unlimited. Every limit change prunes all caches of that kind at once.
/// All members are thread-safe.
public final class GlobalConfiguration: Sendable {
    /// The configuration every pipeline uses.
    public static let shared = GlobalConfiguration()

    // MARK: Defaults

    /// Sentinel that restores a byte budget's default (TIP's `TIPMaxBytesForAll*Default`).
    public static let maxBytesDefault: Int64 = -1
    /// Default entry count for all rendered caches: 255.
    public static let defaultMaxCountForAllRenderedCaches: Int16 = Int16.max >> 7
    /// Default entry count for all memory caches: 255.
    public static let defaultMaxCountForAllMemoryCaches: Int16 = Int16.max >> 7
    /// Default entry count for all disk caches: 2047.
    public static let defaultMaxCountForAllDiskCaches: Int16 = Int16.max >> 4
    /// Default ratio: an entry may use at most 1/6 of its kind's bytes.
    public static let defaultMaxRatioSizeOfCacheEntry = 6
    /// Default bytes for all memory caches: 48 MiB.
    public static let defaultMaxBytesForAllMemoryCaches: Int64 = 48 * 1024 * 1024
    /// Default bytes for all disk caches: 128 MiB.
    public static let defaultMaxBytesForAllDiskCaches: Int64 = 128 * 1024 * 1024
    /// Default bytes for all rendered caches: half of the smaller of RAM / 12 and 160 MiB.
    public static var defaultMaxBytesForAllRenderedCaches: Int64 {
        let ram = Int64(clamping: ProcessInfo.processInfo.physicalMemory)
        return min(ram / 12, 160 * 1024 * 1024) / 2
    }

    // MARK: State

    struct Settings {
        var maxBytes: [ImageCacheType: Int64]
        var maxCount: [ImageCacheType: Int16]
        var maxRatioSizeOfCacheEntry: Int = GlobalConfiguration.defaultMaxRatioSizeOfCacheEntry
        var callbackQueue: DispatchQueue
        /// `callbackQueue`'s token (``GlobalConfiguration/token(of:)``), kept with it so that
        /// ``GlobalConfiguration/isOnCallbackQueue`` asks dispatch once, not twice.
        var callbackQueueToken = 0
        var cachesRootDirectory: URL
        var logger: (any PipelineLogger)? = GlobalConfiguration.defaultLogger
        var maximumPixelCount = ImageDecodingOptions.defaultMaximumPixelCount
        var problemObserver: (any ProblemObserver)?
        var assertsEnabled = true
        var clearMemoryCachesOnApplicationBackgroundEnabled = false
        var defaultInterpolationQuality: InterpolationQuality = .default
        var diskCacheWritesAreDurable = false
        var imageFetchDownloadProvider: (any ImageFetchDownloadProvider)?
        var maxConcurrentImagePipelineDownloadCount = GlobalConfiguration.defaultMaxConcurrentImagePipelineDownloadCount
        var maxImageDownloadByteCount = GlobalConfiguration.defaultMaxImageDownloadByteCount
        var maxImageDownloadDuration = GlobalConfiguration.defaultMaxImageDownloadDuration
        var minimumImageDownloadBytesPerSecond = GlobalConfiguration.defaultMinimumImageDownloadBytesPerSecond
        var imageDownloadRateInterval = GlobalConfiguration.defaultImageDownloadRateInterval
        var followsHTTPCachingHeaders = true
        var maximumHTTPFreshnessLifetime = GlobalConfiguration.defaultMaximumHTTPFreshnessLifetime
        var downloadTimeSource: any DownloadTimeSource = SystemDownloadTimeSource()
        var observers: [WeakObserver] = []
        var isInBackground = false
    }

    struct WeakObserver {
        weak var observer: (any ImagePipelineObserver)?
    }

    let settings: Locked<Settings>
    let renderedDomain: LockedCacheDomain
    let memoryDomain: LockedCacheDomain
    let diskDomain: DiskCacheDomain
    let registry = ImagePipelineRegistry()
    /// The queue every fetch operation runs on (TIP's six-wide shared queue).
    let fetchOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "TIP.fetch"
        queue.maxConcurrentOperationCount = 6
        return queue
    }()
    private let downloaderStorage = Locked<ImageDownloader?>(nil)
    /// The downloader every pipeline of this configuration shares (made on first use).
    var downloader: ImageDownloader {
        downloaderStorage.withLock { stored in
            if let stored { return stored }
            let made = ImageDownloader(configuration: self)
            stored = made
            return made
        }
    }
    /// The clock TTLs and last-access times use; tests inject their own.
    let clock: @Sendable () -> Date
    /// Where counters and timers go (swift-metrics; nothing while no backend is bootstrapped).
    let metrics = PipelineMetrics()
    /// Says once per queue when callbacks wait on a callback queue that nothing services.
    let callbackWatchdog = CallbackQueueWatchdog()

    /// A configuration with TIP's defaults whose pipelines live under `cachesRootDirectory`
    /// (default: the XDG cache directory). `clock` drives TTL expiry (tests inject one).
    package init(cachesRootDirectory: URL? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        let root = cachesRootDirectory ?? GlobalConfiguration.defaultCachesRootDirectory()
        let maxBytes: [ImageCacheType: Int64] = [
            .rendered: GlobalConfiguration.defaultMaxBytesForAllRenderedCaches,
            .memory: GlobalConfiguration.defaultMaxBytesForAllMemoryCaches,
            .disk: GlobalConfiguration.defaultMaxBytesForAllDiskCaches,
        ]
        let maxCount: [ImageCacheType: Int16] = [
            .rendered: GlobalConfiguration.defaultMaxCountForAllRenderedCaches,
            .memory: GlobalConfiguration.defaultMaxCountForAllMemoryCaches,
            .disk: GlobalConfiguration.defaultMaxCountForAllDiskCaches,
        ]
        let callbackQueue = GlobalConfiguration.makeDefaultCallbackQueue()
        var initial = Settings(
            maxBytes: maxBytes, maxCount: maxCount, callbackQueue: callbackQueue, cachesRootDirectory: root)
        initial.callbackQueueToken = GlobalConfiguration.tag(callbackQueue)
        settings = Locked(initial)
        func budget(_ kind: ImageCacheType) -> CacheBudget {
            CacheBudget(
                maxBytes: maxBytes[kind]!, maxCount: Int(maxCount[kind]!),
                maxRatioSizeOfCacheEntry: GlobalConfiguration.defaultMaxRatioSizeOfCacheEntry)
        }
        renderedDomain = LockedCacheDomain(kind: .rendered, budget: budget(.rendered))
        memoryDomain = LockedCacheDomain(kind: .memory, budget: budget(.memory))
        diskDomain = DiskCacheDomain(budget: budget(.disk))
        self.clock = clock
        callbackWatchdog.report = { [weak self] label in self?.warnCallbackQueueNotServiced(label: label) }
        let report: @Sendable (String) -> Void = { [weak self] message in self?.reportInconsistency(message) }
        renderedDomain.withLock { $0.inconsistencyHandler = report }
        memoryDomain.withLock { $0.inconsistencyHandler = report }
        diskDomain.sync { diskDomain.budget.inconsistencyHandler = report }
        let metrics = self.metrics
        for (kind, name) in [(ImageCacheType.rendered, "rendered"), (.memory, "memory"), (.disk, "disk")] {
            let evicted: @Sendable (Int) -> Void = { count in
                metrics.increment("tip_cache_evictions_total", [("cache", name)], by: count)
            }
            switch kind {
            case .rendered: renderedDomain.withLock { $0.evictionHandler = evicted }
            case .memory: memoryDomain.withLock { $0.evictionHandler = evicted }
            case .disk: diskDomain.sync { diskDomain.budget.evictionHandler = evicted }
            }
        }
    }

    // MARK: Budgets

    /// Bytes all rendered caches may hold. Default: half of min(RAM / 12, 160 MiB).
    public var maxBytesForAllRenderedCaches: Int64 {
        get { maxBytes(.rendered) }
        set { setMaxBytes(newValue, for: .rendered) }
    }

    /// Bytes all memory (encoded data) caches may hold. Default 48 MiB.
    public var maxBytesForAllMemoryCaches: Int64 {
        get { maxBytes(.memory) }
        set { setMaxBytes(newValue, for: .memory) }
    }

    /// Bytes all disk caches may hold. Default 128 MiB.
    public var maxBytesForAllDiskCaches: Int64 {
        get { maxBytes(.disk) }
        set { setMaxBytes(newValue, for: .disk) }
    }

    /// Entries all rendered caches may hold (one per identifier). Default 255; 0 unlimited.
    public var maxCountForAllRenderedCaches: Int16 {
        get { maxCount(.rendered) }
        set { setMaxCount(newValue, for: .rendered) }
    }

    /// Entries all memory caches may hold. Default 255; 0 unlimited.
    public var maxCountForAllMemoryCaches: Int16 {
        get { maxCount(.memory) }
        set { setMaxCount(newValue, for: .memory) }
    }

    /// Entries all disk caches may hold. Default 2047; 0 unlimited.
    public var maxCountForAllDiskCaches: Int16 {
        get { maxCount(.disk) }
        set { setMaxCount(newValue, for: .disk) }
    }

    /// An entry may use at most `1 / ratio` of its kind's byte budget. Default 6; negative restores
    /// the default; 0 or 1 removes the cap.
    public var maxRatioSizeOfCacheEntry: Int {
        get { settings.withLock { $0.maxRatioSizeOfCacheEntry } }
        set {
            let ratio = newValue < 0 ? GlobalConfiguration.defaultMaxRatioSizeOfCacheEntry : newValue
            settings.withLock { $0.maxRatioSizeOfCacheEntry = ratio }
            renderedDomain.withLock { $0.setLimits(maxRatioSizeOfCacheEntry: ratio) }
            memoryDomain.withLock { $0.setLimits(maxRatioSizeOfCacheEntry: ratio) }
            diskDomain.sync { diskDomain.budget.setLimits(maxRatioSizeOfCacheEntry: ratio) }
        }
    }

    /// Bytes all live rendered caches hold now.
    public var totalBytesForAllRenderedCaches: Int64 { renderedDomain.withLock { $0.totalBytes } }
    /// Bytes all live memory caches hold now.
    public var totalBytesForAllMemoryCaches: Int64 { memoryDomain.withLock { $0.totalBytes } }
    /// Bytes all live disk caches hold now (files of pipelines that are not live are not counted).
    public var totalBytesForAllDiskCaches: Int64 { diskDomain.sync { diskDomain.budget.totalBytes } }
    /// Entries all live rendered caches hold now.
    public var totalCountForAllRenderedCaches: Int { renderedDomain.withLock { $0.totalCount } }
    /// Entries all live memory caches hold now.
    public var totalCountForAllMemoryCaches: Int { memoryDomain.withLock { $0.totalCount } }
    /// Entries all live disk caches hold now.
    public var totalCountForAllDiskCaches: Int { diskDomain.sync { diskDomain.budget.totalCount } }

    private func maxBytes(_ kind: ImageCacheType) -> Int64 {
        settings.withLock { $0.maxBytes[kind] ?? 0 }
    }

    private func maxCount(_ kind: ImageCacheType) -> Int16 {
        settings.withLock { $0.maxCount[kind] ?? 0 }
    }

    private func setMaxBytes(_ value: Int64, for kind: ImageCacheType) {
        let resolved: Int64
        if value >= 0 {
            resolved = value
        } else {
            switch kind {
            case .rendered: resolved = GlobalConfiguration.defaultMaxBytesForAllRenderedCaches
            case .memory: resolved = GlobalConfiguration.defaultMaxBytesForAllMemoryCaches
            case .disk: resolved = GlobalConfiguration.defaultMaxBytesForAllDiskCaches
            }
        }
        settings.withLock { $0.maxBytes[kind] = resolved }
        applyLimits(kind) { $0.setLimits(maxBytes: resolved) }
    }

    private func setMaxCount(_ value: Int16, for kind: ImageCacheType) {
        let resolved: Int16
        if value >= 0 {
            resolved = value
        } else {
            switch kind {
            case .rendered: resolved = GlobalConfiguration.defaultMaxCountForAllRenderedCaches
            case .memory: resolved = GlobalConfiguration.defaultMaxCountForAllMemoryCaches
            case .disk: resolved = GlobalConfiguration.defaultMaxCountForAllDiskCaches
            }
        }
        settings.withLock { $0.maxCount[kind] = resolved }
        applyLimits(kind) { $0.setLimits(maxCount: Int(resolved)) }
    }

    private func applyLimits(_ kind: ImageCacheType, _ body: (CacheBudget) -> Void) {
        switch kind {
        case .rendered: renderedDomain.withLock(body)
        case .memory: memoryDomain.withLock(body)
        case .disk: diskDomain.sync { body(diskDomain.budget) }
        }
    }

    // MARK: Settings

    /// The queue delegate and completion callbacks run on (`async` fetches never wait for it).
    ///
    /// Default on Linux: a serial queue owned by the library (label `TIP.callbacks`), so a program without a
    /// main loop gets its callbacks; TIP's default, `DispatchQueue.main`, stays one line away for programs that
    /// run one (`dispatchMain()`, `RunLoop.main.run()`): `GlobalConfiguration.shared.callbackQueue = .main`.
    /// Elsewhere the default is `DispatchQueue.main`, as in TIP. When callbacks wait on a queue that
    /// nothing services, one warning naming the queue is logged within 5 to 10 s.
    public var callbackQueue: DispatchQueue {
        get { settings.withLock { $0.callbackQueue } }
        set {
            let token = Self.tag(newValue)
            settings.withLock { settings in
                settings.callbackQueue = newValue
                settings.callbackQueueToken = token
            }
        }
    }

    /// The directory under which each pipeline keeps its disk cache, in
    /// `<root>/TIPImagePipeline/<identifier>/`. Default: `$XDG_CACHE_HOME` or `~/.cache`. Changing it
    /// affects pipelines created afterwards: live pipelines keep their directory, and a warning names them.
    /// A root that cannot hold files is reported when a pipeline stands up (``Problem/diskCacheDirectoryUnusable``).
    public var cachesRootDirectory: URL {
        get { settings.withLock { $0.cachesRootDirectory } }
        set {
            let old = settings.withLock { settings in
                defer { settings.cachesRootDirectory = newValue }
                return settings.cachesRootDirectory
            }
            warnIfLivePipelinesKeep(old, whenRootBecomes: newValue)
        }
    }

    /// Where the pipeline logs. Default ``defaultLogger``: swift-log (`Logger(label: "TIP")`), warnings and more
    /// severe, so an application that bootstraps `LoggingSystem` sees TIP's warnings without configuring TIP
    /// (swift-log's default handler writes to stderr). Set nil to silence the pipeline.
    public var logger: (any PipelineLogger)? {
        get { settings.withLock { $0.logger } }
        set { settings.withLock { $0.logger = newValue } }
    }

    /// Told about problems the pipeline handled. Default nil. Held strongly.
    public var problemObserver: (any ProblemObserver)? {
        get { settings.withLock { $0.problemObserver } }
        set { settings.withLock { $0.problemObserver = newValue } }
    }

    /// Whether internal consistency checks (such as cache accounting going below zero) stop a debug
    /// build with `assertionFailure`. Default true. They are always logged at error level; release
    /// builds only log.
    public var assertsEnabled: Bool {
        get { settings.withLock { $0.assertsEnabled } }
        set { settings.withLock { $0.assertsEnabled = newValue } }
    }

    /// Whether ``applicationDidEnterBackground()`` clears the memory caches and turns the rendered
    /// caches weak (TIP's background behaviour). Default false.
    public var clearMemoryCachesOnApplicationBackgroundEnabled: Bool {
        get { settings.withLock { $0.clearMemoryCachesOnApplicationBackgroundEnabled } }
        set { settings.withLock { $0.clearMemoryCachesOnApplicationBackgroundEnabled = newValue } }
    }

    /// The resampling filter used when no request says otherwise. Default `.default`.
    public var defaultInterpolationQuality: InterpolationQuality {
        get { settings.withLock { $0.defaultInterpolationQuality } }
        set { settings.withLock { $0.defaultInterpolationQuality = newValue } }
    }

    /// Whether every disk-cache file (images, partial downloads, sidecars) is flushed to storage with
    /// `fsync` before it is renamed into place, so that a power loss or kernel crash cannot leave an
    /// entry empty or truncated. Default false, as in TIP: files are written and renamed atomically, which
    /// already protects them against the process being killed at any moment (the kernel keeps the written
    /// pages), and each fetch is spared a flush that costs milliseconds of disk latency. Read on every
    /// write; change it at any time.
    public var diskCacheWritesAreDurable: Bool {
        get { settings.withLock { $0.diskCacheWritesAreDurable } }
        set { settings.withLock { $0.diskCacheWritesAreDurable = newValue } }
    }

    /// The fetch and store operations queued or running, at the time of the call (TIP's
    /// `getAllFetchOperations:allStoreOperations:`).
    public func getAllFetchOperations(
        _ completion: @escaping @Sendable ([ImageFetchOperation], [any DependencyOperation]) -> Void
    ) {
        let operations = fetchOperationQueue.operations
        let fetches = operations.compactMap { $0 as? ImageFetchOperation }.filter { !$0.isFinished }
        let stores: [any DependencyOperation] = operations.compactMap { $0 as? ImageStoreOperation }.filter {
            !$0.isFinished
        }
        completion(fetches, stores)
    }

    /// Marks queues so code can tell whether it runs on the callback queue (a token per queue).
    private static let queueTokenKey = DispatchSpecificKey<Int>()
    private static let nextQueueToken = Locked(1)

    /// Tags `queue` with a token of its own unless it has one; returns its token.
    static func tag(_ queue: DispatchQueue) -> Int {
        nextQueueToken.withLock { next in
            if let token = queue.getSpecific(key: queueTokenKey) { return token }
            let token = next
            queue.setSpecific(key: queueTokenKey, value: token)
            next += 1
            return token
        }
    }

    /// The token `queue` was tagged with (0 when untagged): the same for every `DispatchQueue` object of one queue.
    static func token(of queue: DispatchQueue) -> Int {
        queue.getSpecific(key: queueTokenKey) ?? 0
    }

    /// Whether the caller runs on ``callbackQueue`` (the synchronous rendered-cache hit needs it).
    var isOnCallbackQueue: Bool {
        let (queue, token) = settings.withLock { ($0.callbackQueue, $0.callbackQueueToken) }
        if queue === DispatchQueue.main { return Thread.isMainThread }
        return token != 0 && DispatchQueue.getSpecific(key: Self.queueTokenKey) == token
    }

    // MARK: Observers

    /// Adds an observer of every pipeline (held weakly).
    public func addImagePipelineObserver(_ observer: any ImagePipelineObserver) {
        settings.withLock { settings in
            settings.observers.removeAll { $0.observer == nil || $0.observer === observer }
            settings.observers.append(WeakObserver(observer: observer))
        }
    }

    /// Removes an observer added with ``addImagePipelineObserver(_:)``.
    public func removeImagePipelineObserver(_ observer: any ImagePipelineObserver) {
        settings.withLock { settings in
            settings.observers.removeAll { $0.observer == nil || $0.observer === observer }
        }
    }

    // MARK: Downloads

    /// TIP's default for ``maxConcurrentImagePipelineDownloadCount``: 4.
    public static let defaultMaxConcurrentImagePipelineDownloadCount = 4
    /// The default for ``maxImageDownloadByteCount``: 64 MiB.
    public static let defaultMaxImageDownloadByteCount: Int64 = 64 * 1024 * 1024

    /// Fetch operations that may run at once on the shared fetch queue (TIP's queue is six wide). Values below
    /// 1 restore the default, 6. Operations already running finish; the change applies to the next ones.
    public var maxConcurrentFetchOperationCount: Int {
        get { fetchOperationQueue.maxConcurrentOperationCount }
        set { fetchOperationQueue.maxConcurrentOperationCount = newValue >= 1 ? newValue : 6 }
    }

    /// Downloads that may run at once across all pipelines; the others wait in arrival order. Negative: no
    /// limit; 0: nothing starts until it is raised. Default 4.
    public var maxConcurrentImagePipelineDownloadCount: Int {
        get { settings.withLock { $0.maxConcurrentImagePipelineDownloadCount } }
        set {
            settings.withLock { $0.maxConcurrentImagePipelineDownloadCount = newValue }
            downloader.concurrencyLimitDidChange()
        }
    }

    /// Makes the network downloads. Default (and after setting nil): a shared
    /// ``CurlImageFetchDownloadProvider`` on Linux (TIP: URLSession, kept elsewhere; README: "Differences from
    /// TIP's defaults"). Downloads already running keep their provider. As in TIP, a
    /// provider with stubbing support gets its stubs cleared and stubbing enabled when set, and cleared and
    /// disabled when replaced.
    public var imageFetchDownloadProvider: (any ImageFetchDownloadProvider)! {
        get {
            let provider: (any ImageFetchDownloadProvider)? = settings.withLock { $0.imageFetchDownloadProvider }
            return provider ?? Self.defaultDownloadProvider
        }
        set {
            let old = settings.withLock { settings -> (any ImageFetchDownloadProvider)? in
                defer { settings.imageFetchDownloadProvider = newValue }
                return settings.imageFetchDownloadProvider
            }
            if let old, old !== newValue, let stubbing = old as? any ImageFetchDownloadProviderWithStubbingSupport {
                stubbing.removeAllDownloadStubs()
                stubbing.downloadStubbingEnabled = false
            }
            if let newValue, old !== newValue,
                let stubbing = newValue as? any ImageFetchDownloadProviderWithStubbingSupport
            {
                stubbing.removeAllDownloadStubs()
                stubbing.downloadStubbingEnabled = true
            }
        }
    }

    /// Beyond TIP: the largest response body a download accepts, in bytes; a larger one (announced or
    /// arriving) fails with `ImageFetchError.Code.downloadTooLarge` as soon as it is known. 0 or
    /// negative: no limit. Default 64 MiB.
    public var maxImageDownloadByteCount: Int64 {
        get { settings.withLock { $0.maxImageDownloadByteCount } }
        set { settings.withLock { $0.maxImageDownloadByteCount = newValue } }
    }

    /// The live global observers.
    var imagePipelineObservers: [any ImagePipelineObserver] {
        settings.withLock { $0.observers.compactMap(\.observer) }
    }

    // MARK: Problems and logging

    /// Reports `problem` to the problem observer, and logs it (at warning level unless told; `message`, when
    /// given, says what happened and what to do instead of the problem's name and user info). Package-visible:
    /// image tables report theirs here too.
    package func post(
        _ problem: Problem, userInfo: [String: any Sendable] = [:], level: PipelineLogLevel = .warning,
        message: @autoclosure () -> String? = nil
    ) {
        let observer = settings.withLock { $0.problemObserver }
        log(level, message().map { "\($0) [\(problem.rawValue)]" } ?? "problem \(problem.rawValue) \(userInfo)")
        observer?.problemWasEncountered(problem, userInfo: userInfo)
    }

    /// Logs through the configured logger when it wants `level`; `message` is built only then.
    func log(
        _ level: PipelineLogLevel, _ message: @autoclosure () -> String,
        file: String = #fileID, function: String = #function, line: Int = #line
    ) {
        guard let logger = settings.withLock({ $0.logger }), logger.canLog(level) else { return }
        logger.log(level, file: file, function: function, line: line, message: message())
    }

    /// An internal inconsistency: logged, and an assertion failure in debug builds when enabled.
    func reportInconsistency(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
        let text = message()
        log(.error, text)
        if assertsEnabled {
            assertionFailure(text, file: file, line: line)
        }
    }
}
