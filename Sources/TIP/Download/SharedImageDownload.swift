import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One network download shared by every fetch that joined it: it runs the provider's
/// download through an ``ImageDownloadClient``, applies the HTTP resume rules to its response, feeds the body,
/// delivers to the members, and commits what it got through the pipeline's caches before the members hear the end.
///
/// Confined to the downloader's serial queue (`queue`): every method but `init` runs there, which is what makes
/// the `@unchecked Sendable` sound.
final class SharedImageDownload: @unchecked Sendable {
    /// Where the download is: waiting for a slot, running, or over.
    enum Phase { case waiting, running, finished }

    let key: ImageDownloadKey
    let queue: DispatchQueue
    /// Strong while the download lives (it ends, and is dropped, in bounded time).
    let downloader: ImageDownloader
    let configuration: GlobalConfiguration
    /// The first member's request: caching parameters, hydrator and authorizer.
    let request: ImageDownloadRequest

    /// Where the download is (set by the finishing steps too).
    var phase: Phase = .waiting
    // Confined to the queue like everything else; internal for the extensions in the files next to this one.
    var members: ImageDownloadMembers
    /// The provider's current download and the client it reports to.
    var attempt: (client: ImageDownloadClient, download: any ImageFetchDownload)?
    var rules = ImageDownloadResponseRules()
    var appliedPriority: Operation.QueuePriority?
    private(set) var didStart = false
    /// When the provider started the current attempt (for the fetches' network metrics).
    private(set) var startedAt: ContinuousClock.Instant?

    // What arrived and what the response said (read by the finishing steps).
    let body: ImageDownloadBody
    private(set) var response: HTTPURLResponse?
    private(set) var expectedLength: Int?
    private(set) var isResumed = false
    private(set) var lastModified: String?
    private(set) var entityTag: String?
    private(set) var acceptsRanges = false
    /// What the response said about caching it, and when it arrived (nil with HTTP caching off).
    private(set) var caching: (headers: HTTPCachingHeaders, receivedAt: Date)?
    /// Whether the response may be kept (false for `no-store`): it is then served but never cached.
    private(set) var isStorable = true
    /// Whether the server answered the revalidation with `304 Not Modified`.
    var isNotModified = false
    /// `maxImageDownloadByteCount`, read once per response rather than per chunk.
    private var byteLimit: Int64 = 0
    /// Why the download is being abandoned (chosen at the response or a chunk; the completion then ends it).
    private(set) var failure: (any Error)?
    /// Bytes received from the network (a resumed partial's not included), for the metrics.
    private(set) var receivedByteCount = 0
    /// The downloader's own time limits on the current attempt, and the attempt they belong to.
    var timeouts: ImageDownloadTimeouts?
    var timeoutGeneration = 0

    init(request: ImageDownloadRequest, downloader: ImageDownloader, configuration: GlobalConfiguration) {
        self.configuration = configuration
        self.key = request.joinKey
        self.request = request
        self.queue = downloader.queue
        self.downloader = downloader
        members = ImageDownloadMembers(handle: ImageDownloadHandle(url: request.url, identifier: request.identifier))
        body = ImageDownloadBody(
            interpolationQuality: configuration.defaultInterpolationQuality,
            maximumPixelCount: request.maximumPixelCount)
    }

    /// Whether a new fetch may join: not once it is failing or lost every member (it is being cancelled).
    var acceptsMembers: Bool { phase != .finished && failure == nil && !members.isEmpty }

    var caches: ImagePipelineCaches? { request.pipeline?.caches }

    // MARK: Starting

    /// Starts the network work (the downloader granted a slot).
    func start(provider: any ImageFetchDownloadProvider) {
        guard phase == .waiting else { return }
        phase = .running
        if request.allowsResume, var partial = caches?.cachedPartial(for: request) {
            if !request.storesToDiskCache {
                partial.file?.discard()
                partial.file = nil
            }
            if body.seed(with: partial) {
                rules.resume = partial.resume
                for member in members.all { makePartialImageIfWanted(by: member.request) }
            } else {
                partial.file?.discard()  // a copy: the cached partial stays for a later fetch
            }
        }
        if request.allowsRevalidation, configuration.followsHTTPCachingHeaders {
            rules.revalidation = caches?.revalidation(for: request)
        }
        if rules.resume == nil && !request.allowsFullDownload {
            return finish(
                failing: ImageFetchError(
                    .couldNotLoadImage,
                    """
                    No partial download of \(request.url.absoluteString) is cached and whole downloads are not \
                    allowed; allow the network source to load it.
                    """
                ))
        }
        // A resumed download keeps the file seeded with the partial: a fresh file would hold only the rest.
        if rules.resume == nil, request.storesToDiskCache {
            body.useFile(caches?.beginDownloadFile(identifier: request.identifier))
        }
        launchAttempt(provider: provider)
    }

    func launchAttempt(provider: any ImageFetchDownloadProvider) {
        let client = ImageDownloadClient(
            owner: self, url: request.url, queue: queue, resume: rules.resume,
            revalidation: rules.revalidation)
        let download = provider.imageFetchDownload(with: client)
        guard download.context === client else {
            download.discardContext()
            return finish(
                failing: ImageFetchError(
                    .couldNotDownloadImage,
                    """
                    The download provider returned a download for another context; a provider must make each \
                    download with the context it was given.
                    """
                ))
        }
        attempt = (client, download)
        startTimeouts()
        appliedPriority = members.priority.queuePriority
        configuration.log(
            .debug,
            "download \(request.url.absoluteString) for \(members.count) fetch(es)"
                + (rules.resume.map { ", resuming from byte \($0.byteCount)" } ?? "")
                + (rules.revalidation != nil ? ", revalidating the cached image" : ""))
        download.priority = appliedPriority ?? .normal
        download.start()
    }

    // MARK: Client events (on the queue)

    private func isCurrent(_ client: ImageDownloadClient) -> Bool { attempt?.client === client && phase == .running }

    /// The hydration and authorization blocks and the member they get, for `client`'s request; nil when the
    /// client is stale or every member left.
    func hydrationSubject(for client: ImageDownloadClient)
        -> (member: any ImageDownloadMember, hydrator: ImageRequestHydrator?, authorizer: ImageRequestAuthorizer?)?
    {
        guard isCurrent(client), let first = members.first else { return nil }
        return (first, request.hydrator, request.authorizer)
    }

    func clientDidStart(_ client: ImageDownloadClient) {
        guard isCurrent(client), !didStart else { return }
        didStart = true
        startedAt = .now
        let resumed = rules.resume?.byteCount ?? 0
        let expected = rules.resume?.expectedLength
        // A resumed partial's bytes come first, as one update, so members hold the whole prefix.
        let seeded = body.isEmpty ? nil : makeUpdate(appended: body.count)
        members.forEach { member, handle in
            member.imageDownloadDidStart(handle, resumedByteCount: resumed, expectedLength: expected)
            if let seeded { member.imageDownload(handle, didUpdate: seeded) }
        }
        if let pipeline = request.pipeline {
            let url = request.url
            for observer in pipeline.allObservers { observer.imagePipeline(pipeline, didStartDownloadingImageAt: url) }
        }
    }

    func clientWillRetry(_ client: ImageDownloadClient) {
        if isCurrent(client) {
            response = nil
            isNotModified = false
        }
    }

    func client(_ client: ImageDownloadClient, didReceive response: HTTPURLResponse) {
        guard isCurrent(client) else { return }
        let headers = ResponseHeaders(response)
        if configuration.followsHTTPCachingHeaders { caching = (HTTPCachingHeaders(headers), configuration.clock()) }
        switch rules.decide(status: response.statusCode, headers: headers) {
        case .notModified:
            // No body follows: the completion serves the cached image, renewed.
            isNotModified = true
            self.response = response
            return
        case .retryWithoutRange:
            return restartWithoutRange()
        case .fail(let status):
            return abandon(failing: ImageFetchError.httpTransaction(status: status, url: request.url))
        case .append(let expected):
            isResumed = true
            expectedLength = expected
        case .restart(let expected):
            // A whole body: start again from byte 0. With other validators than the partial's, that partial is of
            // an older version and goes (the same validators: the server ignored the range, the partial stays).
            if let resume = rules.resume,
                resume.isOtherVersion(entityTag: headers.entityTag, lastModified: headers.lastModified)
            {
                caches?.discardRefusedPartial(for: request, resume: resume)
            }
            startOver()
            failMembersForbiddingWholeDownloads()
            if members.isEmpty { return abandon(failing: nil) }
            expectedLength = expected
        case .accept(let expected):
            expectedLength = expected
        }
        self.response = response
        lastModified = headers.lastModified
        entityTag = headers.entityTag
        acceptsRanges = headers.acceptsByteRanges
        applyCachingHeaders(hasValidator: headers.entityTag != nil || headers.lastModified != nil)
        byteLimit = configuration.maxImageDownloadByteCount
        let limit = byteLimit
        if limit > 0, let expected = expectedLength, Int64(expected) > limit {
            return abandon(
                failing: ImageFetchError.downloadTooLarge(byteCount: Int64(expected), limit: limit, url: request.url))
        }
        // One allocation of the announced size instead of a doubling series of copies; never more than the
        // limit (or 64 MiB without one), since the length is the server's word.
        if let expected = expectedLength, Int64(expected) <= (limit > 0 ? limit : 64 * 1024 * 1024) {
            body.reserve(expected)
        }
    }

    func client(_ client: ImageDownloadClient, didReceive data: Data) {
        // A 304 has no body: anything after it is not the image.
        guard isCurrent(client), failure == nil, !isNotModified, !data.isEmpty else { return }
        timeouts?.received(data.count)
        receivedByteCount += data.count
        let hadType = body.imageType != nil
        guard body.append(data, expectedLength: expectedLength) else {
            return abandon(
                failing: ImageFetchError(
                    .couldNotDownloadImage,
                    "Out of memory holding the body of \(request.url.absoluteString) (\(body.count) bytes so far)."))
        }
        if byteLimit > 0, Int64(body.count) > byteLimit {
            return abandon(
                failing: ImageFetchError.downloadTooLarge(
                    byteCount: Int64(body.count), limit: byteLimit, url: request.url))
        }
        if !hadType, body.imageType != nil, body.partialImage == nil {
            for member in members.all { makePartialImageIfWanted(by: member.request) }
        }
        // Members see new scans by the partial image's frame count, not by this append's result: an append that
        // finds the partial image busy leaves its bytes for the next reader.
        members.deliver(makeUpdate(appended: data.count))
    }

    func client(_ client: ImageDownloadClient, didCompleteWith error: (any Error)?) {
        // A download this shared download no longer runs (stopped, or replaced by a retry) is ignored.
        guard isCurrent(client) else { return }
        let sent = attempt.map {
            ($0.download.finalURLRequest ?? $0.client.hydratedRequest, $0.download.downloadMetrics)
        }
        forgetAttempt()
        if let failure { return finish(failing: failure) }
        // A 304 is whole once its header arrived: a transport error after it does not matter.
        if isNotModified { return succeedNotModified(sent: sent) }
        let whole = expectedLength.map { body.count >= $0 } ?? (error == nil)
        if let error {
            if response != nil, whole, expectedLength != nil, body.looksComplete, !body.isEmpty {
                // Every byte arrived: the transport's late error does not matter (TIP forgives it too).
                postUnnecessaryError(error)
                return succeed(sent: sent)
            }
            // One error type at the surface: the transport's error travels as the underlying error. An error the
            // request's own hydration or authorization block returned goes back to the caller as it is.
            return finish(
                failing: client.blockFailed
                    ? error : ImageFetchError.couldNotDownload(request.url, underlyingError: error))
        }
        guard response != nil, !body.isEmpty else {
            return finish(failing: ImageFetchError.emptyResponse(status: response?.statusCode ?? 0, url: request.url))
        }
        guard whole, body.looksComplete else {
            // Every announced byte arrived: the file itself is cut short, and fetching again gets the same bytes.
            let why =
                whole && expectedLength != nil
                ? "every byte the server announced arrived, so the image file itself is cut short"
                : "the server's Content-Length may be wrong, or the connection closed early. Fetch again"
            return finish(
                failing: ImageFetchError(
                    .couldNotDecodeImage,
                    "The response for \(request.url.absoluteString) ended before the image did (\(body.count) bytes"
                        + (expectedLength.map { " of \($0)" } ?? "") + "); \(why)."))
        }
        succeed(sent: sent)
    }

    /// What a successful response's caching headers mean here: a body that may not be kept never reaches the disk
    /// (its file is dropped now), and a cached image the server did not confirm is outdated (removed now, so the
    /// new body or its resumable partial takes its place).
    private func applyCachingHeaders(hasValidator: Bool) {
        if let revalidation = rules.revalidation {
            caches?.discardOutdatedImage(for: request, revalidation: revalidation)
            rules.revalidation = nil
            configuration.metrics.increment("tip_revalidations_total", [("result", "modified")])
        }
        isStorable = true
        guard let caching, !caching.headers.isStorable(hasValidator: hasValidator) else { return }
        isStorable = false
        body.useFile(nil)
    }

    // MARK: Restarts and stops

    /// The body starts over from byte 0, into a fresh file; members drop what they got.
    private func startOver() {
        rules.resume = nil
        isResumed = false
        body.reset(file: request.storesToDiskCache ? caches?.beginDownloadFile(identifier: request.identifier) : nil)
        members.forEach { member, handle in member.imageDownloadDidReset(handle) }
    }

    /// Fails the members that allow only resuming: the download now loads the whole image (`why` says why).
    func failMembersForbiddingWholeDownloads(
        why: String = "The server sent the whole image instead of the rest of the cached partial"
    ) {
        for member in members.all where !member.request.allowsFullDownload {
            fail(
                member: member.id,
                ImageFetchError(
                    .couldNotLoadImage,
                    "\(why), and whole downloads are not allowed; allow the network source to load it."))
        }
    }

    private func restartWithoutRange() {
        attempt?.download.cancel(description: "the server could not continue the partial; loading the whole image")
        forgetAttempt()
        rules.didRestartWithoutRange = true
        // The range is past the end of the image now: the partial is of another, longer version.
        if let resume = rules.resume { caches?.discardRefusedPartial(for: request, resume: resume) }
        startOver()
        failMembersForbiddingWholeDownloads()
        if members.isEmpty { return finish(failing: ImageFetchError.cancelled("every fetch left the download")) }
        launchAttempt(provider: configuration.imageFetchDownloadProvider)
    }

    /// Stops the provider download; its completion then ends the shared download with `failure` (nil: with the
    /// provider's own error).
    private func abandon(failing failure: (any Error)?) {
        if let failure { self.failure = failure }
        attempt?.download.cancel(description: (failure as? ImageFetchError)?.message ?? "the download was abandoned")
    }

    /// Ends the download now with `error`, without waiting for the provider's download to complete (it is
    /// cancelled, and whatever it still reports is dropped).
    func stop(failing error: any Error) {
        attempt?.download.cancel(description: (error as? ImageFetchError)?.message ?? "the download was stopped")
        forgetAttempt()
        finish(failing: error)
    }

    /// Drops the current attempt: whatever its download still reports is ignored (its client lets the download go
    /// once it completed).
    func forgetAttempt() {
        attempt = nil
    }
}
