import Foundation

// What a fetch does to a decoded image before anyone sees it (TIP's transformer, TIP's final scaling step, the
// request's processors), and the results it makes. Runs on `workQueue`.
extension ImageFetchOperation {
    /// `image` through the fetch's processing (``ImageFetchProcessing``): the request's transformer (still images,
    /// when `transforms`), the final scaling step, then the request's processors; `stage` says which image it is.
    func prepared(
        _ image: ImageContainer, stage: ImageProcessingStage,
        transforms: Bool = true
    ) throws(ImageProcessingError) -> (image: ImageContainer, transformed: Bool) {
        try processing.run(
            image, stage: stage, operation: self, maximumPixelCount: request.resolvedMaximumPixelCount(configuration),
            transforms: transforms, scale: scaledIfNeeded)
    }

    /// The final scaling step: with a scaling content mode the delivered image has the target's dimensions. A scaled
    /// image over the fetch's maximum pixel count is not made: the image is delivered unscaled, and TIP's
    /// `TIPProblemImageFailedToScale` posted.
    func scaledIfNeeded(_ image: ImageContainer) -> ImageContainer {
        let target = request.targetDimensions
        guard TargetSizing.canScale(targetDimensions: target, contentMode: request.targetContentMode) else {
            return image
        }
        let expected = TargetSizing.pixelDimensions(
            width: Int(image.dimensions.width), height: Int(image.dimensions.height),
            targetDimensions: target, contentMode: request.targetContentMode)
        guard CGSize(width: expected.width, height: expected.height) != image.dimensions else { return image }
        let limit = request.resolvedMaximumPixelCount(configuration)
        let (pixels, overflow) = expected.width.multipliedReportingOverflow(by: expected.height)
        guard !overflow, pixels <= limit else {
            configuration.post(
                .imageFailedToScale,
                userInfo: [
                    ProblemInfoKey.dimensions: image.dimensions, ProblemInfoKey.targetDimensions: target,
                    ProblemInfoKey.targetContentMode: request.targetContentMode,
                    ProblemInfoKey.scaledDimensions: CGSize(width: expected.width, height: expected.height),
                    ProblemInfoKey.animated: image.isAnimated, ProblemInfoKey.imageIdentifier: identifier,
                ],
                message: "the image \(identifier) was not scaled to \(expected.width)x\(expected.height): that is more "
                    + "than the maximum pixel count (\(limit)); it is delivered at \(Int(image.dimensions.width))x"
                    + "\(Int(image.dimensions.height)). Ask for a smaller target, or raise "
                    + "GlobalConfiguration.maximumPixelCount."
            )
            return image
        }
        return image.scaledToTargetDimensions(
            target, contentMode: request.targetContentMode,
            quality: configuration.defaultInterpolationQuality)
    }

    func makeResult(
        _ image: ImageContainer, source: ImageLoadSource, url: URL, isPlaceholder: Bool,
        originalDimensions: CGSize, transformed: Bool = false, revalidated: Bool = false
    ) -> ImageFetchResult {
        ImageFetchResult(
            imageContainer: image, imageSource: source, imageURL: url, imageOriginalDimensions: originalDimensions,
            imageIsTreatedAsPlaceholder: isPlaceholder, imageWasTransformed: transformed, imageIdentifier: identifier,
            imageWasRevalidated: revalidated)
    }
}
