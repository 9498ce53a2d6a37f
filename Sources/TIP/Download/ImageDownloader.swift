import Foundation

/// Runs the network downloads of every pipeline of a configuration (one per process for
/// `GlobalConfiguration.shared`), sharing one download between fetches that ask for the same thing
/// (see ``ImageDownloadRequest``).
///
/// At most `maxConcurrentImagePipelineDownloadCount` downloads run; the others wait in arrival order
/// (priority never reorders the wait, as in TIP, but sets the running download's priority). Members
/// join and leave at any time; the last one leaving cancels the network request, and a download that
/// breaks off resumably leaves its partial in the pipeline's caches for the next one to resume.
///
/// Thread-safe: the public entry points hop to `queue`, a serial queue that owns all the state.
final class ImageDownloader: @unchecked Sendable {
    // `configuration` is written once (init); everything else is confined to `queue`.
    /// The serial queue owning every download's state; providers' client calls arrive here too.
    let queue = DispatchQueue(label: "TIP.ImageDownloader", qos: .userInitiated)
    /// The running downloads' time-limit checks, on one timer (confined to `queue`).
    let timeoutChecks: ImageDownloadCheckSchedule
    /// Weak: the configuration owns its downloader. Running downloads hold it strongly until they end.
    private weak var configuration: GlobalConfiguration?

    // Confined to `queue`.
    private var downloads: [ImageDownloadKey: SharedImageDownload] = [:]
    private var memberships: [ObjectIdentifier: SharedImageDownload] = [:]
    private var waiting: [SharedImageDownload] = []
    private var runningCount = 0
    private var peakRunning = 0

    init(configuration: GlobalConfiguration) {
        queue.markIdentity()
        timeoutChecks = ImageDownloadCheckSchedule(queue: queue)
        self.configuration = configuration
    }

    /// Adds `member` to the download its request matches, or to a new one. When no download of the URL runs but
    /// one committed the image to the memory cache since the member looked there, the member gets those bytes
    /// instead (a second request for the same URL is never sent).
    func add(_ member: any ImageDownloadMember) {
        let request = member.imageDownloadRequest
        queue.async { [self] in
            let id = ObjectIdentifier(member)
            guard memberships[id] == nil else { return }
            let download: SharedImageDownload
            if let existing = downloads[request.joinKey], existing.acceptsMembers {
                download = existing
            } else {
                let handle = ImageDownloadHandle(url: request.url, identifier: request.identifier)
                guard let configuration else {
                    let error = ImageFetchError(
                        .couldNotDownloadImage, "The pipeline's configuration is gone; nothing can be downloaded.")
                    member.imageDownloadQueue.async { member.imageDownload(handle, didCompleteWith: .failure(error)) }
                    return
                }
                if request.allowsCommittedImage, let committed = request.pipeline?.caches.committedImage(for: request) {
                    let result = ImageDownloadResult(
                        data: committed.data, url: request.url, imageType: committed.imageType,
                        dimensions: committed.dimensions,
                        isAnimated: committed.isAnimated, source: .memoryCache, response: nil, wasCommitted: true,
                        wasStoredOnDisk: false, sentRequest: nil, providerMetrics: nil, networkLoadDuration: 0)
                    member.imageDownloadQueue.async { member.imageDownload(handle, didCompleteWith: .success(result)) }
                    return
                }
                download = SharedImageDownload(request: request, downloader: self, configuration: configuration)
                downloads[request.joinKey] = download
                waiting.append(download)
            }
            memberships[id] = download
            download.add(member, request: request)
            startWaitingDownloads()
        }
    }

    /// Takes `member` out of its download; it gets a `cancelled` completion unless it already completed.
    /// The last member leaving cancels the download (after keeping its resumable partial).
    func remove(_ member: any ImageDownloadMember, reason: String = "the fetch was cancelled") {
        queue.async { [self] in
            let id = ObjectIdentifier(member)
            guard let download = memberships.removeValue(forKey: id) else { return }
            download.remove(id, reason: reason)
        }
    }

    /// Re-reads `member`'s priority and re-prioritizes its download.
    func priorityDidChange(for member: any ImageDownloadMember) {
        queue.async { [self] in
            let id = ObjectIdentifier(member)
            memberships[id]?.priorityDidChange(for: id)
        }
    }

    /// `member` renders nothing after all (its delegate declined scans and shows no first frame): its download stops
    /// feeding the partial image when no other member may render.
    func memberDeclinedRendering(_ member: any ImageDownloadMember) {
        queue.async { [self] in
            let id = ObjectIdentifier(member)
            memberships[id]?.renderingDeclined(by: id)
        }
    }

    /// Starts waiting downloads if the concurrency limit now allows more.
    func concurrencyLimitDidChange() {
        queue.async { [self] in startWaitingDownloads() }
    }

    /// Called by a download once it ended (on the queue): frees its slot and forgets its members.
    func downloadDidFinish(_ download: SharedImageDownload, wasRunning: Bool) {
        timeoutChecks.cancel(download)
        if downloads[download.key] === download { downloads[download.key] = nil }
        for member in download.members.all { memberships[member.id] = nil }
        if let index = waiting.firstIndex(where: { $0 === download }) { waiting.remove(at: index) }
        if wasRunning { runningCount -= 1 }
        startWaitingDownloads()
    }

    /// Forgets a member its download let go (on the queue).
    func memberDidLeave(_ id: ObjectIdentifier) {
        memberships[id] = nil
    }

    /// Downloads running and waiting (for tests and inspection).
    var counts: (running: Int, waiting: Int) {
        queue.sync { (runningCount, waiting.count) }
    }

    /// Time-limit checks registered by running downloads (for tests and inspection).
    var scheduledTimeoutCheckCount: Int {
        queue.sync { timeoutChecks.count }
    }

    /// The most downloads that ever ran at once (for tests and inspection).
    var peakRunningCount: Int {
        queue.sync { peakRunning }
    }

    /// Called on `queue` with a download's URL as the download finishes, once its members were told (tests: a
    /// pause there shows what the finishing download still holds).
    let finished = Locked<(@Sendable (URL) -> Void)?>(nil)

    private func startWaitingDownloads() {
        guard let configuration else { return }
        let limit = configuration.maxConcurrentImagePipelineDownloadCount
        while !waiting.isEmpty && (limit < 0 || runningCount < limit) {
            let next = waiting.removeFirst()
            runningCount += 1
            peakRunning = max(peakRunning, runningCount)
            next.start(provider: configuration.imageFetchDownloadProvider)
        }
    }
}
