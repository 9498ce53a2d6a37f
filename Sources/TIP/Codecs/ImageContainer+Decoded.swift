import Foundation

extension ImageContainer {
    /// A decoded canvas turned upright for `orientation` and resampled to the options' target sizing.
    /// Throws when the output would be over the options' maximum pixel count.
    static func decoded(
        _ bitmap: Bitmap, orientation: ImageOrientation = .up, isPartial: Bool,
        options: ImageDecodingOptions
    ) throws(ImageDecodingError) -> ImageContainer {
        let upright = bitmap.applyingOrientation(orientation)
        let size = try options.checkedOutputDimensions(width: upright.width, height: upright.height)
        let scaled = Resampler.resample(
            upright, width: size.width, height: size.height, quality: options.interpolationQuality)
        return ImageContainer(image: scaled, isPartial: isPartial)
    }

    /// Decodes `data` with `read`, which turns its bytes into a canvas (rows as stored), the orientation
    /// to apply and whether rows are missing; the canvas is then finished by
    /// ``decoded(_:orientation:isPartial:options:)``. Throws `emptyData` when there are no bytes.
    static func decoding(
        _ data: Data, options: ImageDecodingOptions,
        _ read: (UnsafeRawBufferPointer) throws(ImageDecodingError) -> (Bitmap, ImageOrientation, Bool)
    )
        throws(ImageDecodingError) -> ImageContainer
    {
        guard !data.isEmpty else { throw .emptyData }
        let outcome: Result<(Bitmap, ImageOrientation, Bool), ImageDecodingError> = data.withUnsafeBytes { bytes in
            do throws(ImageDecodingError) {
                return .success(try read(bytes))
            } catch {
                return .failure(error)
            }
        }
        let (bitmap, orientation, isPartial) = try outcome.get()
        return try decoded(bitmap, orientation: orientation, isPartial: isPartial, options: options)
    }
}
