import Foundation

// The downloader's own time limits on a running download (on its queue): one check registered at a time, at the
// moment the next limit could be crossed, in the downloader's shared schedule.
extension SharedImageDownload {
    /// Starts the limits for the attempt just launched.
    func startTimeouts() {
        timeoutGeneration += 1
        let limits = ImageDownloadTimeouts(configuration: configuration, now: configuration.downloadTimeSource.now)
        timeouts = limits.isActive ? limits : nil
        scheduleTimeoutCheck()
    }

    private func scheduleTimeoutCheck() {
        guard let next = timeouts?.nextCheck else { return downloader.timeoutChecks.cancel(self) }
        let generation = timeoutGeneration
        downloader.timeoutChecks.schedule(self, at: next, time: configuration.downloadTimeSource) { [weak self] in
            self?.checkTimeouts(generation)
        }
    }

    private func checkTimeouts(_ generation: Int) {
        guard generation == timeoutGeneration, phase == .running, attempt != nil, var limits = timeouts else { return }
        let verdict = limits.check(at: configuration.downloadTimeSource.now)
        timeouts = limits
        switch verdict {
        case .withinLimits:
            scheduleTimeoutCheck()
        case .tooLong(let limit):
            stop(
                failing: ImageFetchError.downloadTimedOut(
                    url: request.url, duration: limit, receivedInAll: body.count, isResumable: isResumable)
            )
        case .tooSlow(let received, let interval, let minimum):
            stop(
                failing: ImageFetchError.downloadTimedOut(
                    url: request.url, received: received, interval: interval, minimumBytesPerSecond: minimum,
                    receivedInAll: body.count, isResumable: isResumable))
        }
    }
}
