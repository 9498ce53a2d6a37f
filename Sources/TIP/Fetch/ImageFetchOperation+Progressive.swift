import Foundation

/// What a fetch's progressive rendering decided and holds: whether it renders scans, whether it shows an
/// animation's first frame, how many renders it made, and the download's partial image.
///
/// Confined to the fetch's `workQueue` (every read and write happens there), which is what makes the
/// `@unchecked Sendable` sound.
final class ImageFetchProgressiveRendering: @unchecked Sendable {
    /// Whether scans are rendered (nil until the header arrived and the delegate was asked).
    var loadsProgressively: Bool?
    var wantsFirstAnimatedFrame = false
    var deliveredFirstAnimatedFrame = false
    var renderCount = 0
    /// The completed scans (or frames) of `partialImage` when this fetch last looked.
    var seenFrameCount = 0
    /// The download's shared partial image, once it came with an update.
    var partialImage: PartialImage?
}

// Progressive scans and first animation frames while bytes arrive. Runs on `workQueue`.
extension ImageFetchOperation {
    /// The policy for `type`: the request's, else TIP's defaults; nil: none.
    func progressivePolicy(for type: ImageType) -> (any ImageFetchProgressiveLoadingPolicy)? {
        (request.progressiveLoadingPolicies ?? ImageFetchProgressiveLoadingPolicies.defaults)[type]
    }

    /// What this fetch may render while its download's bytes arrive, from its delegate's capabilities and the
    /// request's policies (nil: nothing, so the download needs no partial image for it).
    var renderingInterest: ImageDownloadRendering? {
        guard let delegate else { return nil }
        let catalogue = CodecCatalogue.shared
        let policies = request.progressiveLoadingPolicies ?? ImageFetchProgressiveLoadingPolicies.defaults
        let progressive =
            delegate.handlesProgressiveLoading
            ? Set(policies.keys.filter { catalogue.supportsProgressiveLoading($0) }) : []
        let firstFrames = delegate.handlesFirstAnimatedFrame
        guard !progressive.isEmpty || firstFrames else { return nil }
        return ImageDownloadRendering(
            targetDimensions: request.targetDimensions, targetContentMode: request.targetContentMode,
            progressiveTypes: progressive, rendersFirstFrames: firstFrames)
    }

    /// Once the header arrived, asks the delegate (once) whether to load progressively; from that same update on,
    /// renders what the policy asks for, and an animation's first frame.
    func renderProgressively(_ update: ImageDownloadUpdate) {
        guard let type = update.imageType, update.dimensions != .zero, let delegate else { return }
        if rendering.loadsProgressively == nil {
            var wants = false
            let catalogue = CodecCatalogue.shared
            if delegate.handlesProgressiveLoading, catalogue.supportsProgressiveLoading(type),
                progressivePolicy(for: type) != nil
            {
                // Synchronous, on the fetch's queue, as TIP.
                wants = delegate.imageFetchOperation(
                    self, shouldLoadProgressivelyWithIdentifier: identifier, url: request.imageURL,
                    imageType: type, originalDimensions: update.dimensions)
            }
            rendering.loadsProgressively = wants
            rendering.wantsFirstAnimatedFrame = delegate.handlesFirstAnimatedFrame && catalogue.supportsAnimation(type)
            if !wants && !rendering.wantsFirstAnimatedFrame { configuration.downloader.memberDeclinedRendering(self) }
        }
        guard rendering.loadsProgressively == true || rendering.wantsFirstAnimatedFrame,
            let partial = update.partialImage
        else { return }
        if rendering.partialImage !== partial {
            // A body that started over (the server ignored Range) comes with a new partial image, counting anew.
            rendering.partialImage = partial
            rendering.seenFrameCount = 0
        }
        let frameCount = partial.frameCount
        guarded.withLock { $0.progressiveFrameCount = frameCount }
        let source: ImageLoadSource = update.isResumed ? .networkResumed : .network
        // A new scan is one this fetch has not seen, whatever the update says: a download's append that found the
        // partial image busy (a render, or another fetch's read) leaves its bytes for the next reader to decode
        // and reports no scan, and that reader may be this fetch, reading `frameCount` just above.
        let hasNewFrame = frameCount > rendering.seenFrameCount
        rendering.seenFrameCount = frameCount
        if rendering.loadsProgressively == true, let policy = progressivePolicy(for: type) {
            let frameProgress: ImageFetchProgress =
                hasNewFrame ? .fullFrame : (update.appendedByteCount > 0 ? .partialFrame : .none)
            let behavior = policy.behavior(
                for: self, frameProgress: frameProgress, frameCount: frameCount, progress: update.progress,
                type: type, dimensions: update.dimensions, renderCount: rendering.renderCount)
            if behavior != .none {
                let mode: ImageDecoderRenderMode =
                    behavior == .updateWithAnyProgress ? .anyProgress : .fullFrameProgress
                if let image = partial.render(
                    mode: mode, targetDimensions: request.targetDimensions,
                    targetContentMode: request.targetContentMode)
                {
                    rendering.renderCount += 1
                    // A scan the processors fail on is not shown: never an unprocessed image in a processed fetch.
                    if let ready = try? prepared(image, stage: .progressiveScan(progress: update.progress)).image {
                        deliverProgressive(
                            ready, source: source, original: update.dimensions, progress: update.progress,
                            firstFrame: false)
                    }
                }
            }
        }
        if rendering.wantsFirstAnimatedFrame, !rendering.deliveredFirstAnimatedFrame,
            partial.isAnimated || frameCount >= 1,
            let frames = partial.render(
                mode: .fullFrameProgress, targetDimensions: request.targetDimensions,
                targetContentMode: request.targetContentMode),
            frames.isAnimated || partial.isAnimated
        {
            rendering.deliveredFirstAnimatedFrame = true
            // Scaled and processed like the final image; never transformed (TIP transforms no animation).
            if let first = try? prepared(
                ImageContainer(image: frames.image, isPartial: true),
                stage: .progressiveScan(progress: update.progress), transforms: false
            ).image {
                deliverProgressive(
                    first, source: source, original: update.dimensions, progress: update.progress, firstFrame: true)
            }
        }
    }

    /// The final image from the partial image that rendered this fetch's scans, when it holds the whole image
    /// and decodes as a fresh decode would (same sizing, no decoder configuration): its scans are already
    /// decoded, so this costs one output pass instead of a second decode.
    func finalImageFromPartial() -> ImageContainer? {
        guard request.decoderConfigMap == nil, rendering.loadsProgressively == true,
            let partial = rendering.partialImage,
            partial.sizingHint.dimensions == request.targetDimensions,
            partial.sizingHint.contentMode == request.targetContentMode
        else { return nil }
        partial.finalize()
        guard partial.state == .complete,
            let image = partial.render(
                mode: .completeImage, targetDimensions: request.targetDimensions,
                targetContentMode: request.targetContentMode),
            !image.isPartial
        else { return nil }
        return image
    }

    private func deliverProgressive(
        _ image: ImageContainer, source: ImageLoadSource, original: CGSize, progress: Float,
        firstFrame: Bool
    ) {
        let result = ImageFetchResult(
            imageContainer: image, imageSource: source, imageURL: request.imageURL,
            imageOriginalDimensions: original, imageIsTreatedAsPlaceholder: false,
            imageWasTransformed: false, imageIdentifier: identifier)
        let now = clock.now
        guarded.withLock { state in
            state.progressiveResult = result
            state.recorder.record(.hitProgressFrame, at: now)
            state.recorder.noteFirstProgressiveFrame(at: now)
        }
        if firstFrame {
            deliver { operation, delegate in
                delegate.imageFetchOperation(operation, didLoadFirstAnimatedImageFrame: result, progress: progress)
            }
        } else {
            deliver { operation, delegate in
                delegate.imageFetchOperation(operation, didUpdateProgressiveImage: result, progress: progress)
            }
        }
    }
}
