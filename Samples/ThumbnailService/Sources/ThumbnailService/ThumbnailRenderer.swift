import Foundation
import TIP

/// Decodes a source at the box's size, crops or fits it, and encodes it, on a concurrent dispatch queue
/// (never on a Swift-concurrency thread: the work is CPU-bound).
struct ThumbnailRenderer: Sendable {
    /// The most pixels a source may have (checked from its header before decoding).
    let maxSourcePixelCount: Int
    /// JPEG and WebP quality, 0...1.
    let quality: Float

    private static let queue = DispatchQueue(label: "tip-thumbnails.render", attributes: .concurrent)

    /// The thumbnail of `data` for `parameters`; `sourceDimensions` (zero when unknown) lets a source that
    /// already fits be decoded at its own size; throws `ThumbnailError`.
    func render(_ data: Data, sourceDimensions: CGSize = .zero, parameters: ThumbnailParameters) async throws
        -> Thumbnail
    {
        let result: Result<Thumbnail, ThumbnailError> = await withCheckedContinuation { continuation in
            Self.queue.async {
                do {
                    continuation.resume(
                        returning: .success(
                            try renderNow(data, sourceDimensions: sourceDimensions, parameters: parameters)))
                } catch {
                    continuation.resume(returning: .failure(ThumbnailError.from(error)))
                }
            }
        }
        return try result.get()
    }

    /// The same, on the caller's thread.
    func renderNow(_ data: Data, sourceDimensions: CGSize = .zero, parameters: ThumbnailParameters) throws -> Thumbnail
    {
        let box = CGSize(width: parameters.width, height: parameters.height)
        let mode: ContentMode = parameters.fit == .crop ? .scaleAspectFill : .scaleAspectFit
        // Decoding to a fitting target enlarges a small image; `fit` never does, so a source that fits the box
        // (in either orientation, as EXIF may turn it) is decoded at its own size, and `resizeToFit` shrinks
        // what still does not fit.
        let fits = Self.fits(sourceDimensions, in: box)
        let target = parameters.fit == .fit && fits ? CGSize.zero : box
        let options = ImageDecodingOptions(
            targetDimensions: target, targetContentMode: mode,
            maximumPixelCount: maxSourcePixelCount, interpolationQuality: .high)
        let decoded = try CodecCatalogue.shared.decodeImage(data, options: options).container
        // A whole body whose decoder could not read every pixel is damaged (cut short and closed, a bad checksum):
        // never a thumbnail that clients would cache, as the pipeline never caches such an image either.
        if decoded.isPartial {
            throw ThumbnailError.originFailed(
                "the origin's image is damaged or cut short: the decoder could not read every pixel")
        }
        let context = ImageProcessingContext(targetDimensions: box, targetContentMode: mode)
        let processors: [any ImageProcessor] = parameters.fit == .crop ? [.cropToFill()] : [.resizeToFit()]
        let processed = try decoded.processed(by: processors, context: context)
        let encodingOptions: ImageEncodingOptions = parameters.format == .jpeg ? [.noAlpha] : []
        let body = try CodecCatalogue.shared.encodeImage(
            processed, type: parameters.format.imageType,
            quality: quality, options: encodingOptions)
        return Thumbnail(body: body, contentType: parameters.format.mimeType, entityTag: EntityTag.of(body))
    }

    /// Whether `size` (non-zero) fits inside `box` as it is or turned by 90 degrees.
    static func fits(_ size: CGSize, in box: CGSize) -> Bool {
        guard size.width > 0, size.height > 0 else { return false }
        return (size.width <= box.width && size.height <= box.height)
            || (size.height <= box.width && size.width <= box.height)
    }
}
