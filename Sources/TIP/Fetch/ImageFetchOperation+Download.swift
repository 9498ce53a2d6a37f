import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The fetch as a member of a shared download, from joining to the downloaded image: events arrive on `workQueue`.
extension ImageFetchOperation {
    /// What this fetch asks the downloader for, with what it may render while the bytes arrive.
    var imageDownloadRequest: ImageDownloadRequest {
        var download = ImageDownloadRequest(fetchRequest: request, pipeline: imagePipeline)
        download.rendering = renderingInterest
        return download
    }

    /// The fetch's priority.
    var imageDownloadPriority: ImageFetchPriority { priority }

    /// The fetch's own serial queue.
    var imageDownloadQueue: DispatchQueue { workQueue }

    func imageDownloadDidStart(_ download: ImageDownloadHandle, resumedByteCount: Int, expectedLength: Int?) {
        if resumedByteCount > 0 { guarded.withLock { $0.recorder.fileNetwork(asResumed: true) } }
        let progress: Float = expectedLength.map { $0 > 0 ? min(0.999, Float(resumedByteCount) / Float($0)) : 0 } ?? 0
        report(progress: progress)
    }

    func imageDownloadDidReset(_ download: ImageDownloadHandle) {
        guarded.withLock { $0.recorder.fileNetwork(asResumed: false) }
        report(progress: 0, restarting: true)
    }

    func imageDownload(_ download: ImageDownloadHandle, didUpdate update: ImageDownloadUpdate) {
        if isCancelRequested { return }
        guarded.withLock { state in
            if let type = update.imageType { state.networkLoadImageType = type }
            if update.dimensions != .zero { state.networkImageOriginalDimensions = update.dimensions }
        }
        report(progress: update.progress)
        renderProgressively(update)
    }

    func imageDownload(_ download: ImageDownloadHandle, didCompleteWith result: Result<ImageDownloadResult, any Error>)
    {
        setDownloading(false)
        switch result {
        case .failure(let error):
            fail(error)
        case .success(let downloaded):
            // Cancelled after the last byte but before this ran: the bytes are cached, the fetch is cancelled.
            if isCancelRequested { return fail(ImageFetchError.cancelled(cancelReason)) }
            finishDownload(downloaded)
        }
    }

    /// Records the network metrics, then makes the final image once for every concurrent fetch of it (see
    /// ``produceFinalImage(as:_:)``): decoded from the bytes (or taken from the partial image that rendered the
    /// scans) and processed. An image that does not decode fails the fetch and leaves the caches.
    private func finishDownload(_ downloaded: ImageDownloadResult) {
        let fromNetwork = downloaded.source == .network || downloaded.source == .networkResumed
        if fromNetwork, ImageMetadataReader.hasGPSInfo(downloaded.data, type: downloaded.imageType) {
            // TIP: an image served with its location is a privacy leak to report (it is still delivered).
            configuration.post(
                .imageDownloadedHasGPSInfo, userInfo: [ProblemInfoKey.imageURL: downloaded.url.absoluteString],
                message: "the image downloaded from \(downloaded.url.absoluteString) carries GPS information "
                    + "(an EXIF GPS directory): the server should strip it")
        }
        if fromNetwork || downloaded.wasRevalidated {
            guarded.withLock { state in
                state.recorder.updateNetwork { info in
                    info.wasRevalidated = downloaded.wasRevalidated
                    info.networkImageSizeInBytes = downloaded.data.count
                    info.networkImageType = downloaded.imageType
                    info.networkImageDimensions = downloaded.dimensions
                    info.networkRequest = downloaded.sentRequest
                    info.networkMetrics = downloaded.providerMetrics
                    info.totalNetworkLoadDuration = downloaded.networkLoadDuration
                }
            }
        }
        produceFinalImage(as: downloaded.source) { [self] in
            let image: ImageContainer
            do {
                image =
                    try finalImageFromPartial()
                    ?? decoding.decode(
                        downloaded.data, type: downloaded.imageType,
                        quality: configuration.defaultInterpolationQuality,
                        metrics: configuration.metrics)
            } catch {
                if downloaded.wasCommitted {
                    caches.discardUndecodableImage(identifier: identifier, url: downloaded.url, error: error)
                } else {
                    configuration.post(
                        .imageDownloadedCouldNotBeDecoded,
                        userInfo: [
                            ProblemInfoKey.imageURL: downloaded.url.absoluteString,
                            ProblemInfoKey.imageIdentifier: identifier,
                            ProblemInfoKey.error: String(describing: error),
                        ])
                }
                let failure = ImageFetchError(
                    .couldNotDecodeImage, Self.undecodableMessage(error, downloaded: downloaded))
                return .notProduced { self.fail(failure) }
            }
            return finalAttempt(
                image, originalDimensions: downloaded.dimensions == .zero ? image.dimensions : downloaded.dimensions,
                isPlaceholder: request.options.contains(.treatAsPlaceholder), bytes: nil,
                freshUntil: downloaded.freshness?.freshUntil, isStorable: downloaded.isStorable,
                revalidated: downloaded.wasRevalidated)
        }
    }

    /// Why a downloaded body did not decode, in words that name the setting or the response that explains it.
    static func undecodableMessage(_ error: any Error, downloaded: ImageDownloadResult) -> String {
        let url = downloaded.url.absoluteString
        let contentType =
            downloaded.response?.value(forHTTPHeaderField: "Content-Type").map { "Content-Type \($0)" }
            ?? "no Content-Type"
        // A body in a content coding (gzip...) is kept as sent: the coding, not the image, is what no codec reads.
        let coding = downloaded.response?.value(forHTTPHeaderField: "Content-Encoding")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .flatMap { $0.isEmpty || $0.lowercased() == "identity" ? nil : $0 }
        switch error as? ImageDecodingError {
        case .unrecognizedFormat?, .emptyData?:
            if let coding {
                return
                    "The response from \(url) came with Content-Encoding \(coding) (\(contentType), "
                    + "\(downloaded.data.count) bytes), though TIP asks for identity and decodes no content coding; "
                    + "configure the server not to compress images."
            }
            return
                "The response from \(url) is not an image: the server sent \(contentType) (\(downloaded.data.count) "
                + "bytes), "
                + "which no registered codec reads; check the URL (an error or login page answered with a success "
                + "status?)."
        case .missingCodec(let type)?:
            return "The image downloaded from \(url) is \(type.rawValue) (\(contentType)), and no codec for it is "
                + "registered; \(type.missingCodecAdvice)."
        case let .dimensionsTooLarge(width, height, limit)?:
            let asStored =
                ImageDecodingOptions.exceedsOnlyAsStored(width: width, height: height, limit: limit)
                ? " as a bitmap holds it (its rows padded to 16 pixels)" : ""
            return
                "The image downloaded from \(url) is \(width)x\(height), which exceeds the limit of \(limit) pixels"
                + "\(asStored); raise "
                + "GlobalConfiguration.shared.maximumPixelCount (or the request's maximumPixelCount) to load it."
        default:
            return
                "The image downloaded from \(url) (\(contentType)) could not be decoded (\(error)); the server may "
                + "have "
                + "sent something else."
        }
    }

    /// Records and reports download progress, which only goes back when the download restarts from byte 0.
    func report(progress: Float, restarting: Bool = false) {
        let reported = guarded.withLock { state -> Float? in
            guard restarting || progress > state.progress || (progress == 0 && state.progress == 0) else { return nil }
            state.progress = progress
            return progress
        }
        guard let reported else { return }
        deliver { operation, delegate in delegate.imageFetchOperation(operation, didUpdateProgress: reported) }
    }
}
