extension ImageContainer {
    /// A decoded canvas turned upright for `orientation` and resampled to the options' target sizing.
    /// Throws when the output would be over the options' maximum pixel count.
    static func decoded(_ bitmap: Bitmap, orientation: ImageOrientation = .up, isPartial: Bool,
                        options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        let upright = bitmap.applyingOrientation(orientation)
        let size = try options.checkedOutputDimensions(width: upright.width, height: upright.height)
        let scaled = Resampler.resample(upright, width: size.width, height: size.height, quality: options.interpolationQuality)
        return ImageContainer(image: scaled, isPartial: isPartial)
    }
}
