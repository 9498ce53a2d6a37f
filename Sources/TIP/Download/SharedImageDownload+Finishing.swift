import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// How a shared download ends (on its queue): what it commits to the caches, in which order, and when the members
// hear of it. The memory cache gets the bytes before the download stops being joinable, so a fetch arriving
// in between finds them there; the file is installed before the members hear the end, so a fetch they start finds
// the image (or the partial it resumes) on disk too.
extension SharedImageDownload {
    /// `sent`: the request the provider sent and its metrics.
    func succeed(sent: (request: URLRequest?, metrics: (any Sendable)?)?) {
        configuration.log(
            .debug,
            "downloaded \(request.url.absoluteString): \(body.count) bytes"
                + (isResumed ? " (resumed)" : "") + ", HTTP \(response?.statusCode ?? 0)")
        // Only bodies the catalogue reads become cache entries: anything else would fail to decode on every hit.
        // A response that may not be kept (`no-store`) is served and forgotten.
        let committed = body.isReadable(maximumPixelCount: request.maximumPixelCount) && isStorable
        var taken = body.takeImage(lastModified: lastModified, entityTag: entityTag, expectedLength: nil)
        let fallbackLifetime = self.request.timeToLive
        taken.freshness = caching.map {
            $0.headers.freshness(
                receivedAt: $0.receivedAt, fallbackLifetime: fallbackLifetime,
                maximumLifetime: configuration.maximumHTTPFreshnessLifetime)
        }
        let image = taken
        let queue = committingToMemory(committed ? image : nil)
        let (leaving, file) = end(wasRunning: true, succeeded: true)
        let request = self.request
        let response = self.response
        let result = ImageDownloadResult(
            data: image.data, url: request.url, imageType: image.imageType, dimensions: image.dimensions,
            isAnimated: image.isAnimated, source: isResumed ? .networkResumed : .network, response: response,
            wasCommitted: committed, wasStoredOnDisk: false, sentRequest: sent?.request.map(Self.withoutAuthorization),
            providerMetrics: sent?.metrics,
            networkLoadDuration: startedAt.map { (ContinuousClock.now - $0).timeInterval } ?? 0,
            freshness: image.freshness, isStorable: isStorable)
        let handle = members.handle
        // The hand-over reaches the pipeline through the request (weakly) and holds it only while it commits: the
        // members it tells must be the last to let it go.
        let handOver: @Sendable () -> Void = {
            var stored = result
            if let file {
                let caches = committed ? request.pipeline?.caches : nil
                stored.wasStoredOnDisk =
                    caches?.commitDownloadFile(file, image: image, for: request, complete: true) ?? false
                if caches == nil { file.discard() }
            }
            let delivered = stored
            if let pipeline = request.pipeline {
                for observer in pipeline.allObservers {
                    observer.imagePipeline(
                        pipeline, didFinishDownloadingImageAt: request.url, imageType: image.imageType,
                        byteCount: image.data.count, dimensions: image.dimensions,
                        wasResumed: result.source == .networkResumed)
                }
            }
            ImageDownloadMembers.dispatch(to: leaving, handle: handle) { member, _, handle in
                member.imageDownload(handle, didCompleteWith: .success(delivered))
            }
        }
        Self.run(handOver, installingFile: file != nil, queue: queue)
        downloader.finished.withLock { $0 }?(request.url)
    }

    /// Ends the download with `error`. A resumable partial goes into the memory cache at once and to the disk before
    /// the members hear of the failure.
    func finish(failing error: any Error) {
        if rules.revalidation != nil, phase == .running, !Self.isCancellation(error) {
            configuration.metrics.increment("tip_revalidations_total", [("result", "failure")])
        }
        let keepsPartial = isResumable
        configuration.log(
            .information,
            "download of \(request.url.absoluteString) failed after \(body.count) bytes"
                + (keepsPartial ? " (partial kept)" : "") + ": \(error)")
        let partial =
            keepsPartial
            ? body.takeImage(lastModified: lastModified, entityTag: entityTag, expectedLength: expectedLength) : nil
        let queue = committingToMemory(partial, partial: true)
        let (leaving, file) = end(wasRunning: phase == .running)
        let request = self.request
        let handle = members.handle
        let handOver: @Sendable () -> Void = {
            if let file {
                if keepsPartial, let caches = request.pipeline?.caches, let partial {
                    caches.commitDownloadFile(file, image: partial, for: request, complete: false)
                } else {
                    file.discard()
                }
            }
            ImageDownloadMembers.dispatch(to: leaving, handle: handle) { member, _, handle in
                member.imageDownload(handle, didCompleteWith: .failure(error))
            }
        }
        Self.run(handOver, installingFile: file != nil, queue: queue)
        downloader.finished.withLock { $0 }?(request.url)
    }

    /// Puts `image` (none: nothing) into the memory cache when the request stores there, as the complete image or
    /// (`partial`) a resumable partial; returns the pipeline's commit queue, or nil when there is no image or no
    /// pipeline. The pipeline is held only while this runs: a finishing download must not hold it while the
    /// members hear the end, or an `async` caller resumed by them could find it still live.
    private func committingToMemory(_ image: ImagePipelineCaches.DownloadedImage?, partial: Bool = false)
        -> DispatchQueue?
    {
        guard let image, let caches = request.pipeline?.caches else { return nil }
        if request.storesToMemoryCache {
            if partial {
                caches.keepPartialDownload(image, for: request)
            } else {
                caches.commitDownloadedImage(image, for: request)
            }
        }
        return caches.diskWriteQueue
    }

    /// Runs a download's hand-over: with a file to install (which can take milliseconds), off the downloader's
    /// queue, on `queue` (the caches' commit queue); without one, here, with no hop.
    private static func run(
        _ handOver: @escaping @Sendable () -> Void, installingFile: Bool, queue: DispatchQueue?
    ) {
        if installingFile {
            (queue ?? .global(qos: .utility)).async(execute: handOver)
        } else {
            handOver()
        }
    }

    /// Whether what arrived can be resumed later: the body began with a usable response that may be kept (not
    /// `no-store`) carrying a validator and `Accept-Ranges: bytes`, the image's header arrived, and the download
    /// broke off or was cancelled (not refused). What a download ended now would keep as a partial.
    var isResumable: Bool {
        guard isStorable, let response, [200, 206].contains(response.statusCode),
            failure == nil || Self.isCancellation(failure),
            acceptsRanges || isResumed, lastModified != nil || entityTag != nil,
            body.hasReadHeader, !request.isPlaceholder, !body.isEmpty
        else { return false }
        if let expectedLength, body.count >= expectedLength { return false }
        return true
    }

    private static func isCancellation(_ error: (any Error)?) -> Bool {
        (error as? ImageFetchError)?.code == .cancelled
    }

    /// Marks the download over, frees its slot and hands out its members and its file (the finishing steps
    /// commit or discard the file, then tell the members).
    @discardableResult
    func end(wasRunning: Bool, succeeded: Bool = false) -> (
        members: [any ImageDownloadMember], file: ImagePipelineCaches.DownloadFile?
    ) {
        if wasRunning {
            let metrics = configuration.metrics
            if receivedByteCount > 0 { metrics.increment("tip_downloaded_bytes_total", by: receivedByteCount) }
            if let startedAt {
                metrics.record(
                    "tip_download_duration_seconds", [("result", succeeded ? "success" : "failure")],
                    duration: ContinuousClock.now - startedAt)
            }
        }
        phase = .finished
        downloader.downloadDidFinish(self, wasRunning: wasRunning)
        return (members.removeAll(), body.takeFile())
    }

    func postUnnecessaryError(_ error: any Error) {
        var info: [String: any Sendable] = [
            ProblemInfoKey.imageURL: request.url.absoluteString,
            ProblemInfoKey.imageIdentifier: request.identifier,
            ProblemInfoKey.error: String(describing: error),
        ]
        if let response {
            info[ProblemInfoKey.httpStatusCode] = response.statusCode
            info[ProblemInfoKey.httpResponseHeaders] = ResponseHeaders.loggable(response)
        }
        configuration.post(.imageDownloadedWithUnnecessaryError, userInfo: info)
    }
}
