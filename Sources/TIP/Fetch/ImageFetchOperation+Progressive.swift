import Foundation

// Progressive scans and first animation frames while bytes arrive (API map §22.7). Runs on `workQueue`.
extension ImageFetchOperation {
    /// The policy for `type`: the request's, else TIP's defaults; nil: none.
    func progressivePolicy(for type: ImageType) -> (any ImageFetchProgressiveLoadingPolicy)? {
        (request.progressiveLoadingPolicies ?? ImageFetchProgressiveLoadingPolicies.defaults)[type]
    }

    /// Once the header arrived, asks the delegate (once) whether to load progressively; afterwards renders
    /// what the policy asks for, and an animation's first frame.
    func renderProgressively(_ update: ImageDownloadUpdate) {
        guard let type = update.imageType, update.dimensions != .zero, let delegate else { return }
        let decided = guarded.withLock { $0.loadsProgressively }
        guard let loadsProgressively = decided else {
            var wants = false
            let catalogue = CodecCatalogue.shared
            if delegate.handlesProgressiveLoading, catalogue.supportsProgressiveLoading(type), progressivePolicy(for: type) != nil {
                // Synchronous, on the fetch's queue, as TIP.
                wants = delegate.imageFetchOperation(self, shouldLoadProgressivelyWithIdentifier: identifier, url: request.imageURL,
                                                     imageType: type, originalDimensions: update.dimensions)
            }
            let wantsFirstFrame = delegate.handlesFirstAnimatedFrame && catalogue.supportsAnimation(type)
            guarded.withLock {
                $0.loadsProgressively = wants
                $0.wantsFirstAnimatedFrame = wantsFirstFrame
            }
            if wants || wantsFirstFrame {
                configuration.downloader.usePartialImage(for: self, sizing: (request.targetDimensions, request.targetContentMode))
            }
            return  // the partial image comes with the next update
        }
        guard let partial = update.partialImage else { return }
        let frameCount = partial.frameCount
        guarded.withLock {
            $0.progressiveFrameCount = frameCount
            $0.partialImage = partial
        }
        let source: ImageLoadSource = update.isResumed ? .networkResumed : .network
        if loadsProgressively, let policy = progressivePolicy(for: type) {
            let frameProgress: ImageFetchProgress = update.appendResult >= .didLoadFrame ? .fullFrame
                : (update.appendedByteCount > 0 ? .partialFrame : .none)
            let renderCount = guarded.withLock { $0.renderCount }
            let behavior = policy.behavior(for: self, frameProgress: frameProgress, frameCount: frameCount, progress: update.progress,
                                           type: type, dimensions: update.dimensions, renderCount: renderCount)
            if behavior != .none {
                let mode: ImageDecoderRenderMode = behavior == .updateWithAnyProgress ? .anyProgress : .fullFrameProgress
                if let image = partial.render(mode: mode, targetDimensions: request.targetDimensions,
                                              targetContentMode: request.targetContentMode) {
                    deliverProgressive(prepared(image, progress: update.progress).image, source: source, original: update.dimensions, progress: update.progress,
                                       firstFrame: false)
                }
            }
        }
        let firstFrameDue = guarded.withLock { $0.wantsFirstAnimatedFrame && !$0.deliveredFirstAnimatedFrame }
        if firstFrameDue, partial.isAnimated || frameCount >= 1,
           let frames = partial.render(mode: .fullFrameProgress, targetDimensions: request.targetDimensions,
                                       targetContentMode: request.targetContentMode),
           frames.isAnimated || partial.isAnimated {
            guarded.withLock { $0.deliveredFirstAnimatedFrame = true }
            let first = scaledIfNeeded(ImageContainer(image: frames.image, isPartial: true))
            deliverProgressive(first, source: source, original: update.dimensions, progress: update.progress, firstFrame: true)
        }
    }

    /// The final image from the partial image that rendered this fetch's scans, when it holds the whole image
    /// and decodes as a fresh decode would (same sizing, no decoder configuration): its scans are already
    /// decoded, so this costs one output pass instead of a second decode.
    func finalImageFromPartial() -> ImageContainer? {
        guard request.decoderConfigMap == nil,
              let partial = guarded.withLock({ $0.loadsProgressively == true ? $0.partialImage : nil }),
              partial.sizingHint.dimensions == request.targetDimensions,
              partial.sizingHint.contentMode == request.targetContentMode,
              partial.state == .complete,
              let image = partial.render(mode: .completeImage, targetDimensions: request.targetDimensions,
                                         targetContentMode: request.targetContentMode),
              !image.isPartial
        else { return nil }
        return image
    }

    private func deliverProgressive(_ image: ImageContainer, source: ImageLoadSource, original: CGSize, progress: Float,
                                    firstFrame: Bool) {
        let result = ImageFetchResult(imageContainer: image, imageSource: source, imageURL: request.imageURL,
                                      imageOriginalDimensions: original, imageIsTreatedAsPlaceholder: false,
                                      imageWasTransformed: false, imageIdentifier: identifier)
        let now = clock.now
        guarded.withLock { state in
            state.progressiveResult = result
            if !firstFrame { state.renderCount += 1 }
            state.recorder.record(.hitProgressFrame, at: now)
            state.recorder.noteFirstProgressiveFrame(at: now)
        }
        if firstFrame {
            deliver { operation, delegate in delegate.imageFetchOperation(operation, didLoadFirstAnimatedImageFrame: result, progress: progress) }
        } else {
            deliver { operation, delegate in delegate.imageFetchOperation(operation, didUpdateProgressiveImage: result, progress: progress) }
        }
    }
}
