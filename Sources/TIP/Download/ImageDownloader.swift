import Foundation

/// Runs the network downloads of every pipeline of a configuration (one per process for
/// `GlobalConfiguration.shared`), sharing one download between fetches that ask for the same thing
/// (API map §22.5).
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
    /// Weak: the configuration owns its downloader. Running downloads hold it strongly until they end.
    private weak var configuration: GlobalConfiguration?

    // Confined to `queue`.
    private var downloads: [ImageDownloadKey: SharedImageDownload] = [:]
    private var memberships: [ObjectIdentifier: SharedImageDownload] = [:]
    private var waiting: [SharedImageDownload] = []
    private var runningCount = 0
    private var peakRunning = 0

    init(configuration: GlobalConfiguration) {
        self.configuration = configuration
    }

    /// Adds `member` to the download its request matches, or to a new one.
    func add(_ member: any ImageDownloadDelegate) {
        let request = member.imageDownloadRequest
        queue.async { [self] in
            let id = ObjectIdentifier(member)
            guard memberships[id] == nil else { return }
            let download: SharedImageDownload
            if let existing = downloads[request.joinKey], existing.acceptsMembers {
                download = existing
            } else {
                guard let configuration else {
                    let handle = ImageDownloadHandle(url: request.url, identifier: request.identifier)
                    let error = ImageFetchError(.couldNotDownloadImage, "The pipeline's configuration is gone; nothing can be downloaded.")
                    member.imageDownloadQueue.async { member.imageDownload(handle, didCompleteWith: .failure(error)) }
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
    /// The last member leaving cancels the download.
    func remove(_ member: any ImageDownloadDelegate, reason: String = "the fetch was cancelled") {
        queue.async { [self] in
            let id = ObjectIdentifier(member)
            guard let download = memberships.removeValue(forKey: id) else { return }
            if download.remove(id, reason: reason) { download.cancelForLackOfMembers() }
        }
    }

    /// Re-reads `member`'s priority and re-prioritizes its download.
    func priorityDidChange(for member: any ImageDownloadDelegate) {
        queue.async { [self] in
            let id = ObjectIdentifier(member)
            memberships[id]?.priorityDidChange(for: id)
        }
    }

    /// Gives `member`'s download a shared partial image (fed from now on), decoding for `sizing` (the
    /// member's target); it arrives with the next update.
    func usePartialImage(for member: any ImageDownloadDelegate,
                         sizing: (dimensions: CGSize, contentMode: ContentMode) = (.zero, .center)) {
        queue.async { [self] in memberships[ObjectIdentifier(member)]?.usePartialImage(sizing: sizing) }
    }

    /// Starts waiting downloads if the concurrency limit now allows more.
    func concurrencyLimitDidChange() {
        queue.async { [self] in startWaitingDownloads() }
    }

    /// Called by a download once it ended (on the queue): frees its slot and forgets its members.
    func downloadDidFinish(_ download: SharedImageDownload, wasRunning: Bool) {
        if downloads[download.key] === download { downloads[download.key] = nil }
        for member in download.members { memberships[ObjectIdentifier(member.delegate)] = nil }
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

    /// The most downloads that ever ran at once (for tests and inspection).
    var peakRunningCount: Int {
        queue.sync { peakRunning }
    }

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
