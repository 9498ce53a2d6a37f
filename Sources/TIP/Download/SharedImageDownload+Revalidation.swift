import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// How a revalidation that the server answered `304 Not Modified` ends (on the download's queue): the cached image
// is renewed in the memory and disk caches before the download stops being joinable, and the members get its
// bytes as a cache hit that was revalidated.
extension SharedImageDownload {
    /// Serves the cached image the server confirmed; when it left the caches while the server was asked, asks
    /// again for the whole image (once).
    func succeedNotModified(sent: (request: URLRequest?, metrics: (any Sendable)?)?) {
        guard let revalidation = rules.revalidation, let response, request.pipeline != nil else {
            return finish(failing: ImageFetchError.httpTransaction(status: 304, url: request.url))
        }
        let storable = caching.map { !$0.headers.noStore } ?? true
        guard let renewed = renewCachedImage(revalidation: revalidation, response: response, storable: storable)
        else { return retryWithoutRevalidation() }
        configuration.metrics.increment("tip_revalidations_total", [("result", "not_modified")])
        configuration.log(
            .debug, "revalidated \(request.url.absoluteString): 304, served from the \(renewed.source) cache")
        let (leaving, file) = end(wasRunning: true, succeeded: true)
        file?.discard()  // a resumed partial's copy: the partial itself stays cached
        let image = renewed.image
        let result = ImageDownloadResult(
            data: image.data, url: request.url, imageType: image.imageType, dimensions: image.dimensions,
            isAnimated: image.isAnimated, source: renewed.source, response: response, wasCommitted: storable,
            wasStoredOnDisk: renewed.source == .diskCache && storable,
            sentRequest: sent?.request.map(Self.withoutAuthorization),
            providerMetrics: sent?.metrics,
            networkLoadDuration: startedAt.map { (ContinuousClock.now - $0).timeInterval } ?? 0,
            wasRevalidated: true, freshness: storable ? image.freshness : nil, isStorable: storable)
        ImageDownloadMembers.dispatch(to: leaving, handle: members.handle) { member, _, handle in
            member.imageDownload(handle, didCompleteWith: .success(result))
        }
        downloader.finished.withLock { $0 }?(request.url)
    }

    /// Renews the cached image the `304` confirmed (and drops it from the caches when the response may not be kept:
    /// `storable` false); nil when it left the caches meanwhile, or the pipeline went away. The pipeline is held
    /// only while this runs: the members must be the last to let it go.
    private func renewCachedImage(revalidation: ImageDownloadRevalidation, response: HTTPURLResponse, storable: Bool)
        -> ImagePipelineCaches.RevalidatedImage?
    {
        guard let caches else { return nil }
        let headers = ResponseHeaders(response)
        let now = caching?.receivedAt ?? configuration.clock()
        let caching = caching?.headers
        let fallback = request.timeToLive
        let maximum = configuration.maximumHTTPFreshnessLifetime
        let renewed = caches.renewRevalidatedImage(
            for: request, revalidation: revalidation, entityTag: headers.entityTag,
            lastModified: headers.lastModified
        ) { stored in
            Self.renewedFreshness(
                caching, stored: stored, receivedAt: now, fallbackLifetime: fallback, maximumLifetime: maximum)
        }
        if renewed != nil, !storable { caches.discardOutdatedImage(for: request, revalidation: revalidation) }
        return renewed
    }

    /// The freshness a `304` gives the cached image: from its own caching headers when it has them (RFC 9111
    /// §4.3.4: they replace the stored ones), else the stored server lifetime again, else the request's TTL.
    static func renewedFreshness(
        _ caching: HTTPCachingHeaders?, stored: CacheFreshness?, receivedAt: Date,
        fallbackLifetime: TimeInterval, maximumLifetime: TimeInterval
    ) -> CacheFreshness {
        if let caching, caching.serverLifetime(receivedAt: receivedAt) != nil {
            return caching.freshness(
                receivedAt: receivedAt, fallbackLifetime: fallbackLifetime, maximumLifetime: maximumLifetime)
        }
        let age = caching?.age ?? 0
        if let lifetime = stored?.serverLifetime {
            return CacheFreshness(freshUntil: receivedAt.addingTimeInterval(lifetime - age), serverLifetime: lifetime)
        }
        return CacheFreshness(freshUntil: receivedAt.addingTimeInterval(fallbackLifetime), serverLifetime: nil)
    }

    /// The confirmed image is no longer cached (evicted or cleared while the server was asked): the download asks
    /// again, unconditionally.
    private func retryWithoutRevalidation() {
        configuration.log(
            .debug, "the revalidated image of \(request.url.absoluteString) left the caches meanwhile; downloading it")
        rules.revalidation = nil
        isNotModified = false
        if rules.resume == nil {
            failMembersForbiddingWholeDownloads(
                why: "The revalidated image left the caches before the server confirmed it")
        }
        if members.isEmpty { return finish(failing: ImageFetchError.cancelled("every fetch left the download")) }
        if rules.resume == nil, body.file == nil {
            body.useFile(caches?.beginDownloadFile(identifier: request.identifier))
        }
        launchAttempt(provider: configuration.imageFetchDownloadProvider)
    }

    /// `request` as the members may see it: without its `Authorization` header.
    static func withoutAuthorization(_ request: URLRequest) -> URLRequest {
        // Most requests carry none: looking first spares a copy of the request's header fields.
        guard
            request.allHTTPHeaderFields?.keys.contains(where: {
                HTTPFieldText.equalsIgnoringASCIICase($0, "Authorization")
            }) == true
        else { return request }
        var request = request
        request.setValue(nil, forHTTPHeaderField: "Authorization")
        return request
    }
}
