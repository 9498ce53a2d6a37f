import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One network download shared by every fetch that joined it (API map §22.5-22.6): its members, the
/// body so far, the disk-cache temporary file, resumption and the final hand-over.
///
/// Confined to the downloader's serial queue (`queue`): every method but `init` runs there, which is
/// what makes the `@unchecked Sendable` sound.
final class SharedImageDownload: @unchecked Sendable {
    /// A fetch taking part.
    struct Member {
        let delegate: any ImageDownloadDelegate
        let request: ImageDownloadRequest
        var priority: ImageFetchPriority
        var id: ObjectIdentifier { ObjectIdentifier(delegate) }
    }

    /// Where the download is: waiting for a slot, running, or over.
    enum Phase { case waiting, running, finished }

    let key: ImageDownloadKey
    let handle: ImageDownloadHandle
    let queue: DispatchQueue
    /// Strong while the download lives (it ends, and is dropped, in bounded time).
    let downloader: ImageDownloader
    let configuration: GlobalConfiguration
    /// The first member's request: caching parameters, hydrator and authorizer.
    let request: ImageDownloadRequest

    private(set) var phase: Phase = .waiting
    private(set) var members: [Member] = []
    private var attempt: ImageDownloadAttempt?
    private var resume: ImageDownloadResume?
    private var rangeWasRefused = false
    private var appliedPriority: Operation.QueuePriority?
    /// Hands events to the members on their queues.
    private var delivery = ImageDownloadDelivery()
    private var didStart = false
    /// When the provider started the current attempt (for the fetches' network metrics).
    private var startedAt: ContinuousClock.Instant?

    // The body and what the response said.
    private let body = ImageDownloadBody()
    private var response: HTTPURLResponse?
    private var expectedByteCount: Int?
    private var isResumed = false
    private var lastModified: String?
    private var eTag: String?
    private var acceptsRanges = false
    /// `maxImageDownloadByteCount`, read once per response rather than per chunk.
    private var byteLimit: Int64 = 0
    private var temporaryFile: DiskCacheTemporaryFile?
    private let header = ImageDownloadHeaderReader()
    /// The decoder members render progressive scans and first frames from; made (and fed from then on) only
    /// once a member asks, so plain downloads never decode while bytes arrive.
    private var partialImage: PartialImage?
    private var failure: (any Error)?

    init(request: ImageDownloadRequest, downloader: ImageDownloader, configuration: GlobalConfiguration) {
        self.configuration = configuration
        self.key = request.joinKey
        self.request = request
        self.handle = ImageDownloadHandle(url: request.url, identifier: request.identifier)
        self.queue = downloader.queue
        self.downloader = downloader
    }

    /// Whether a new fetch may join: not once it is failing or lost every member (it is being cancelled).
    var acceptsMembers: Bool { phase != .finished && failure == nil && !members.isEmpty }

    /// The priority the download runs at: the highest of its members', at least `veryLow + 1`.
    var priority: ImageFetchPriority {
        max(members.map(\.priority).max() ?? .normal, ImageFetchPriority.downloadFloor)
    }

    private var pipeline: ImagePipeline? { request.pipeline }

    // MARK: Members

    /// Adds a member, catching it up when bytes already arrived.
    func add(_ delegate: any ImageDownloadDelegate, request: ImageDownloadRequest) {
        let member = Member(delegate: delegate, request: request, priority: delegate.imageDownloadPriority)
        if phase == .running && didStart {
            let handle = self.handle
            let start = (resume?.byteCount ?? 0, expectedByteCount ?? resume?.expectedByteCount)
            let catchUp = body.isEmpty ? nil : makeUpdate(appended: body.count)
            delegate.imageDownloadQueue.async {
                delegate.imageDownloadDidStart(handle, resumedByteCount: start.0, expectedByteCount: start.1)
                if let catchUp { delegate.imageDownload(handle, didUpdate: catchUp) }
            }
        }
        members.append(member)
        membersDidChange()
        if !request.allowsFullDownload && phase == .running && response != nil && !isResumed {
            fail(member: member.id, ImageFetchError(.couldNotLoadImage,
                "Only resuming was allowed, but this download is a whole one; allow the network source to load it."))
        }
        updatePriority()
    }

    /// Removes a member, which gets a `cancelled` completion. Returns whether none remain.
    func remove(_ id: ObjectIdentifier, reason: String) -> Bool {
        fail(member: id, ImageFetchError.cancelled(reason))
        return members.isEmpty
    }

    /// Re-reads a member's priority.
    func priorityDidChange(for id: ObjectIdentifier) {
        guard let index = members.firstIndex(where: { $0.id == id }) else { return }
        members[index].priority = members[index].delegate.imageDownloadPriority
        updatePriority()
    }

    /// Tells the provider's download the priority when it changed (setting it can cost a lock or a hop).
    private func updatePriority() {
        guard let download = attempt?.download else { return }
        let current = priority.queuePriority
        if current != appliedPriority {
            appliedPriority = current
            download.priority = current
        }
    }

    /// Completes one member with `error` and lets it go.
    private func fail(member id: ObjectIdentifier, _ error: any Error) {
        guard let index = members.firstIndex(where: { $0.id == id }) else { return }
        let delegate = members.remove(at: index).delegate
        membersDidChange()
        downloader.memberDidLeave(id)
        let handle = self.handle
        delegate.imageDownloadQueue.async { delegate.imageDownload(handle, didCompleteWith: .failure(error)) }
        updatePriority()
    }

    /// Members joined or left.
    private func membersDidChange() {
        delivery.membersDidChange()
    }

    private func forEachMember(_ body: @escaping @Sendable (any ImageDownloadDelegate, ImageDownloadHandle) -> Void) {
        delivery.closeBatches()
        ImageDownloadDelivery.dispatch(to: members.map(\.delegate), handle: handle) { delegate, _, handle in body(delegate, handle) }
    }

    private func makeUpdate(appended: Int, appendResult: ImageDecoderAppendResult = .didProgress) -> ImageDownloadUpdate {
        ImageDownloadUpdate(
            // Before the response, a resumed partial's recorded length stands in for the expected length.
            appendedByteCount: appended, totalByteCount: body.count, expectedByteCount: expectedByteCount ?? resume?.expectedByteCount,
            imageType: header.imageType, dimensions: header.dimensions, isResumed: isResumed,
            appendResult: appendResult, partialImage: partialImage)
    }

    /// Makes the shared partial image (fed every byte so far) if there is none yet, decoding for `sizing`
    /// (JPEG picks its DCT scale from it; members rendering at other sizings resample from that scale).
    func usePartialImage(sizing: (dimensions: CGSize, contentMode: ContentMode)) {
        guard partialImage == nil, phase != .finished else { return }
        let made = makePartialImage(expectedContentLength: expectedByteCount, sizing: sizing)
        if !body.isEmpty { made.append(body.copy()) }
        partialImage = made
    }

    private func makePartialImage(expectedContentLength: Int?, sizing: (dimensions: CGSize, contentMode: ContentMode)) -> PartialImage {
        PartialImage(expectedContentLength: expectedContentLength, sizingHint: sizing,
                     interpolationQuality: configuration.defaultInterpolationQuality)
    }

    // MARK: Starting

    /// Starts the network work (the downloader granted a slot).
    func start(provider: any ImageFetchDownloadProvider) {
        guard phase == .waiting else { return }
        phase = .running
        if request.allowsResume { prepareResume() }
        if resume == nil && !request.allowsFullDownload {
            return finish(failing: ImageFetchError(.couldNotLoadImage,
                "No partial download of \(request.url.absoluteString) is cached and whole downloads are not allowed; allow the network source to load it."))
        }
        // A resumed download keeps the file seeded with the partial (or none, if that failed): a fresh file
        // would hold only the rest of the bytes.
        if resume == nil { temporaryFile = openTemporaryFile() }
        launchAttempt(provider: provider)
    }

    private func openTemporaryFile() -> DiskCacheTemporaryFile? {
        guard let pipeline else { return nil }
        return try? pipeline.diskCache.openTemporaryFile(forIdentifier: request.identifier)
    }

    /// Continues a cached partial of the same URL when there is one.
    private func prepareResume() {
        guard let pipeline, let found = ImageDownloadResume.find(for: request, in: pipeline) else { return }
        guard body.append(found.data) else {  // the body is empty: the download has not started
            found.file?.discard()  // a copy: the cached partial stays for a later fetch
            return
        }
        temporaryFile = found.file
        resume = found.resume
        header.consume(all: found.data, chunk: found.data, expectedLength: found.resume.expectedByteCount)
    }

    private func launchAttempt(provider: any ImageFetchDownloadProvider) {
        let attempt = ImageDownloadAttempt(owner: self, url: request.url, queue: queue, isRangeRequest: resume != nil)
        self.attempt = attempt
        let download = provider.imageFetchDownload(with: attempt)
        guard download.context === attempt else {
            self.attempt = nil
            attempt.detach()
            return finish(failing: ImageFetchError(.couldNotDownloadImage,
                "The download provider returned a download for another context; a provider must make each download with the context it was given."))
        }
        attempt.download = download
        appliedPriority = priority.queuePriority
        configuration.log(.debug, "download \(request.url.absoluteString) for \(members.count) fetch(es)"
            + (resume.map { ", resuming from byte \($0.byteCount)" } ?? ""))
        download.priority = appliedPriority ?? .normal
        download.start()
    }

    // MARK: Provider events (on the queue)

    func attemptDidStart(_ attempt: ImageDownloadAttempt) {
        guard attempt === self.attempt, !didStart else { return }
        didStart = true
        startedAt = .now
        let resumed = resume?.byteCount ?? 0
        let expected = resume?.expectedByteCount
        // A resumed partial's bytes come first, as one update, so members hold the whole prefix.
        let seeded = body.isEmpty ? nil : makeUpdate(appended: body.count)
        forEachMember { delegate, handle in
            delegate.imageDownloadDidStart(handle, resumedByteCount: resumed, expectedByteCount: expected)
            if let seeded { delegate.imageDownload(handle, didUpdate: seeded) }
        }
        if let pipeline {
            let url = request.url
            for observer in pipeline.allObservers { observer.imagePipeline(pipeline, didStartDownloadingImageAt: url) }
        }
    }

    func hydrate(_ attempt: ImageDownloadAttempt, request original: URLRequest,
                 completion: @escaping @Sendable ((any Error)?) -> Void) {
        guard attempt === self.attempt, let first = members.first?.delegate else {
            return completion(ImageFetchError.cancelled("every fetch left the download"))
        }
        let once = Locked(false)
        let range = attempt.isRangeRequest ? resume : nil
        let originalURL = self.request.url
        let finish: ImageRequestHydrator.Completion = { [queue] hydrated, error in
            guard once.withLock({ called in defer { called = true }; return !called }) else { return }
            queue.async {
                if let error { return completion(error) }
                var request = hydrated ?? original
                if request.url != original.url {
                    return completion(ImageFetchError.illegalModification(originalURL: originalURL, modifiedURL: request.url))
                }
                if (request.httpMethod ?? "GET") != (original.httpMethod ?? "GET") {
                    return completion(ImageFetchError.illegalModification(
                        originalHTTPMethod: original.httpMethod ?? "GET", modifiedHTTPMethod: request.httpMethod))
                }
                if let range {
                    request.setValue("bytes=\(range.byteCount)-", forHTTPHeaderField: "Range")
                    request.setValue(range.validator, forHTTPHeaderField: "If-Range")
                }
                attempt.setHydratedRequest(request)
                // Header names only: values (cookies, tokens) stay out of the logs.
                let names = (request.allHTTPHeaderFields ?? [:]).keys.sorted().joined(separator: ", ")
                self.configuration.log(.debug, "hydrated \(originalURL.absoluteString), headers: [\(names)]")
                completion(nil)
            }
        }
        if let hydrator = self.request.hydrator {
            hydrator.block(original, first, finish)
        } else {
            finish(nil, nil)
        }
    }

    func authorize(_ attempt: ImageDownloadAttempt, request hydrated: URLRequest,
                   completion: @escaping @Sendable ((any Error)?) -> Void) {
        guard attempt === self.attempt, let first = members.first?.delegate else {
            return completion(ImageFetchError.cancelled("every fetch left the download"))
        }
        guard let authorizer = request.authorizer else { return completion(nil) }
        let once = Locked(false)
        authorizer.block(hydrated, first) { [queue] value, error in
            guard once.withLock({ called in defer { called = true }; return !called }) else { return }
            queue.async {
                if let error { return completion(error) }
                attempt.setAuthorization(value)
                completion(nil)
            }
        }
    }

    func attemptWillRetry(_ attempt: ImageDownloadAttempt) {
        guard attempt === self.attempt else { return }
        attempt.setHydratedRequest(nil)
        attempt.setAuthorization(nil)
        response = nil
    }

    func attempt(_ attempt: ImageDownloadAttempt, didReceive response: HTTPURLResponse) {
        guard attempt === self.attempt, phase == .running else { return }
        let status = response.statusCode
        if attempt.isRangeRequest && status == 416 && !rangeWasRefused {
            // The server refused the range: drop the partial and load the whole image once.
            rangeWasRefused = true
            return restartWithoutRange()
        }
        // A 206 to a request without a range holds some unknown part of the image: never take it as the whole.
        guard (200..<300).contains(status), status != 206 || attempt.isRangeRequest else {
            return abandon(attempt, failing: ImageFetchError.httpTransaction(status: status, url: request.url))
        }
        self.response = response
        let headers = ResponseHeaders(response)
        byteLimit = configuration.maxImageDownloadByteCount
        let limit = byteLimit
        if attempt.isRangeRequest && status == 206,
           let range = headers.contentRange, range.first == resume?.byteCount {
            isResumed = true
            expectedByteCount = range.total ?? resume?.expectedByteCount
        } else {
            if attempt.isRangeRequest {
                // A whole body (200, or a 206 for other bytes): start again from byte 0.
                guard status == 200 else {
                    return abandon(attempt, failing: ImageFetchError.httpTransaction(status: status, url: request.url))
                }
                resetBody()
                failMembersForbiddingWholeDownloads()
                if members.isEmpty { return abandon(attempt, failing: nil) }
            }
            expectedByteCount = headers.contentLength
        }
        lastModified = headers.lastModified
        eTag = headers.eTag
        acceptsRanges = headers.acceptsByteRanges
        if limit > 0, let expected = expectedByteCount, Int64(expected) > limit {
            return abandon(attempt, failing: ImageFetchError.downloadTooLarge(byteCount: Int64(expected), limit: limit, url: request.url))
        }
        // One allocation of the announced size instead of a doubling series of copies; never more than the
        // limit (or 64 MiB without one), since the length is the server's word.
        let reservable = limit > 0 ? limit : 64 * 1024 * 1024
        if let expected = expectedByteCount, expected > body.count, Int64(expected) <= reservable {
            body.reserve(expected)
        }
    }

    func attempt(_ attempt: ImageDownloadAttempt, didReceive data: Data) {
        guard attempt === self.attempt, phase == .running, !data.isEmpty else { return }
        if members.isEmpty {
            return abandon(attempt, failing: ImageFetchError.cancelled("every fetch left the download"))
        }
        guard body.append(data) else {
            return abandon(attempt, failing: ImageFetchError(.couldNotDownloadImage,
                "Out of memory holding the body of \(request.url.absoluteString) (\(body.count) bytes so far)."))
        }
        let limit = byteLimit
        if limit > 0, Int64(body.count) > limit {
            return abandon(attempt, failing: ImageFetchError.downloadTooLarge(byteCount: Int64(body.count), limit: limit, url: request.url))
        }
        if let file = temporaryFile {
            do { try file.append(data) } catch {
                file.discard()
                temporaryFile = nil  // reported by the cache; the download goes on without it
            }
        }
        header.consume(all: body.copy(), chunk: data, expectedLength: expectedByteCount)
        let appendResult = partialImage?.append(data) ?? .didProgress
        delivery.deliver(makeUpdate(appended: data.count, appendResult: appendResult), to: members.map(\.delegate), handle: handle)
    }

    func attempt(_ attempt: ImageDownloadAttempt, didCompleteWith error: (any Error)?) {
        guard attempt === self.attempt, phase == .running else { return }
        self.attempt = nil
        let sent = (attempt.download?.finalURLRequest ?? attempt.hydratedRequest, attempt.download?.downloadMetrics)
        attempt.detach()
        if let failure {
            // Abandoned after a bad response: the error was chosen then.
            return finish(failing: failure)
        }
        let whole = expectedByteCount.map { body.count >= $0 } ?? (error == nil)
        let looksComplete = body.withUnsafeBytes { ImageDownloadHeaderReader.looksComplete($0, type: header.imageType) }
        if let error {
            if response != nil, whole, expectedByteCount != nil, looksComplete, !body.isEmpty {
                // Every byte arrived: the transport's late error does not matter (TIP forgives it too).
                configuration.post(.imageDownloadedWithUnnecessaryError, userInfo: [
                    ProblemInfoKey.imageURL: request.url.absoluteString,
                    ProblemInfoKey.imageIdentifier: request.identifier,
                    ProblemInfoKey.error: String(describing: error),
                ])
                return succeed(sent: sent)
            }
            return finish(failing: error)
        }
        guard response != nil, !body.isEmpty else {
            return finish(failing: ImageFetchError.emptyResponse(status: response?.statusCode ?? 0, url: request.url))
        }
        guard whole, looksComplete else {
            return finish(failing: ImageFetchError(.couldNotDecodeImage,
                "The response for \(request.url.absoluteString) ended before the image did (\(body.count) bytes"
                + (expectedByteCount.map { " of \($0)" } ?? "") + "); the server's Content-Length may be wrong. Fetch again."))
        }
        succeed(sent: sent)
    }

    // MARK: Restarts

    private func resetBody() {
        body.clear()
        resume = nil
        isResumed = false
        header.reset()
        if let old = partialImage { partialImage = makePartialImage(expectedContentLength: nil, sizing: old.sizingHint) }
        temporaryFile?.discard()
        temporaryFile = openTemporaryFile()
        forEachMember { delegate, handle in delegate.imageDownloadDidReset(handle) }
    }

    private func failMembersForbiddingWholeDownloads() {
        for member in members where !member.request.allowsFullDownload {
            fail(member: member.id, ImageFetchError(.couldNotLoadImage,
                "The server sent the whole image instead of the rest of the cached partial, and whole downloads are not allowed; allow the network source to load it."))
        }
    }

    private func restartWithoutRange() {
        guard let old = attempt else { return }
        attempt = nil
        old.download?.cancel(description: "the server refused the range; loading the whole image")
        old.detach()
        resetBody()
        failMembersForbiddingWholeDownloads()
        if members.isEmpty { return finish(failing: ImageFetchError.cancelled("every fetch left the download")) }
        launchAttempt(provider: configuration.imageFetchDownloadProvider)
    }

    /// Stops the provider download; its completion then ends the shared download with `failure`
    /// (nil: with the provider's own error).
    private func abandon(_ attempt: ImageDownloadAttempt, failing failure: (any Error)?) {
        if let failure { self.failure = failure }
        attempt.download?.cancel(description: (failure as? ImageFetchError)?.message ?? "the download was abandoned")
    }

    /// Cancels the network work because no member is left.
    func cancelForLackOfMembers() {
        switch phase {
        case .waiting:
            phase = .finished
            temporaryFile?.discard()
            temporaryFile = nil
            downloader.downloadDidFinish(self, wasRunning: false)
        case .running:
            if let attempt {
                attempt.download?.cancel(description: "every fetch left the download")
            } else {
                finish(failing: ImageFetchError.cancelled("every fetch left the download"))
            }
        case .finished:
            break
        }
    }

    // MARK: Finishing

    /// `sent`: the request the provider sent and its metrics.
    private func succeed(sent: (request: URLRequest?, metrics: (any Sendable)?)) {
        configuration.log(.debug, "downloaded \(request.url.absoluteString): \(body.count) bytes"
            + (isResumed ? " (resumed)" : "") + ", HTTP \(response?.statusCode ?? 0)")
        phase = .finished
        downloader.downloadDidFinish(self, wasRunning: true)
        let file = temporaryFile
        temporaryFile = nil
        let metadata = diskMetadata(expectedLength: 0)
        delivery.membersDidChange()
        let members = self.members
        self.members = []
        let body = self.body.take()
        let url = request.url
        let type = header.imageType
        let dimensions = header.dimensions
        let isAnimated = header.isAnimated
        let wasResumed = isResumed
        let response = self.response
        let pipeline = self.pipeline
        let handle = self.handle
        let sentRequest = sent.request.map { request in
            var request = request
            request.setValue(nil, forHTTPHeaderField: "Authorization")
            return request
        }
        let providerMetrics = sent.metrics
        let networkLoadDuration = startedAt.map { (ContinuousClock.now - $0).timeInterval } ?? 0
        let handOver: @Sendable () -> Void = {
            let stored = file?.finalize(metadata: metadata, complete: true) ?? false
            if let pipeline {
                for observer in pipeline.allObservers {
                    observer.imagePipeline(pipeline, didFinishDownloadingImageAt: url, imageType: type,
                                           byteCount: body.count, dimensions: dimensions, wasResumed: wasResumed)
                }
            }
            let result = ImageDownloadResult(
                data: body, url: url, imageType: type, dimensions: dimensions, isAnimated: isAnimated,
                wasResumed: wasResumed, response: response, isFirstMember: false, wasStoredOnDisk: stored,
                sentRequest: sentRequest, providerMetrics: providerMetrics, networkLoadDuration: networkLoadDuration)
            ImageDownloadDelivery.dispatch(to: members.map(\.delegate), handle: handle) { delegate, position, handle in
                var own = result
                own.isFirstMember = position == 0
                delegate.imageDownload(handle, didCompleteWith: .success(own))
            }
        }
        // Flushing a file can take milliseconds: off the downloader's queue. Without one, no hop.
        if file != nil { DispatchQueue.global(qos: .utility).async(execute: handOver) } else { handOver() }
    }

    private func finish(failing error: any Error) {
        configuration.log(.information, "download of \(request.url.absoluteString) failed after \(body.count) bytes"
            + (isResumable ? " (partial kept)" : "") + ": \(error)")
        let wasRunning = phase == .running
        phase = .finished
        downloader.downloadDidFinish(self, wasRunning: wasRunning)
        let file = temporaryFile
        temporaryFile = nil
        let keepPartial = isResumable
        let metadata = diskMetadata(expectedLength: expectedByteCount.map(Int64.init) ?? 0)
        let partial = keepPartial ? memoryPartial() : nil
        body.clear()
        delivery.membersDidChange()
        let members = self.members
        self.members = []
        let pipeline = self.pipeline
        let identifier = request.identifier
        let handle = self.handle
        let handOver: @Sendable () -> Void = {
            if let file {
                if keepPartial { file.finalize(metadata: metadata, complete: false) } else { file.discard() }
            }
            if let partial, let pipeline {
                pipeline.memoryCache.updateEntry(MemoryCacheEntry(identifier: identifier, partial: partial))
            }
            ImageDownloadDelivery.dispatch(to: members.map(\.delegate), handle: handle) { delegate, _, handle in
                delegate.imageDownload(handle, didCompleteWith: .failure(error))
            }
        }
        if file != nil || partial != nil { DispatchQueue.global(qos: .utility).async(execute: handOver) } else { handOver() }
    }

    /// Whether what arrived can be resumed later: the body began with a usable response carrying a
    /// validator and `Accept-Ranges: bytes`, and the image's header arrived.
    private var isResumable: Bool {
        guard let response, [200, 206].contains(response.statusCode), failure == nil || isCancellation(failure),
              acceptsRanges || isResumed, lastModified != nil || eTag != nil,
              header.hasReadHeader, !request.isPlaceholder, !body.isEmpty else { return false }
        if let expectedByteCount, body.count >= expectedByteCount { return false }
        return true
    }

    private func isCancellation(_ error: (any Error)?) -> Bool {
        (error as? ImageFetchError)?.code == .cancelled
    }

    private func diskMetadata(expectedLength: Int64) -> DiskCacheMetadata {
        DiskCacheMetadata(
            identifier: request.identifier, url: request.url, lastAccess: configuration.clock(),
            timeToLive: request.timeToLive, updatesExpiryOnAccess: request.updatesExpiryOnAccess,
            width: Int(header.dimensions.width), height: Int(header.dimensions.height),
            isAnimated: header.isAnimated, isPlaceholder: request.isPlaceholder,
            lastModified: lastModified, eTag: eTag, expectedLength: expectedLength,
            imageType: header.imageType?.rawValue)
    }

    private func memoryPartial() -> MemoryCachePartialImage {
        MemoryCachePartialImage(
            data: body.take(), url: request.url, dimensions: header.dimensions,
            expectedContentLength: expectedByteCount ?? 0, lastModified: lastModified, entityTag: eTag,
            imageType: header.imageType, isAnimated: header.isAnimated, isPlaceholder: request.isPlaceholder,
            timeToLive: request.timeToLive, updateExpiryOnAccess: request.updatesExpiryOnAccess)
    }
}
