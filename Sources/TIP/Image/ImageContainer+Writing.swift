import Foundation

extension ImageContainer {
    /// Encodes the image and writes it to the file at `url` in one call, atomically (a temporary file renamed
    /// into place). A symbolic link is followed, and a device or FIFO (`/dev/stdout`) is written through, never
    /// replaced.
    ///
    /// ```swift
    /// try image.write(to: URL(fileURLWithPath: "thumb.png"))               // the type from the extension
    /// try image.write(to: URL(fileURLWithPath: "thumb"), type: .jpeg, quality: 0.8)
    /// ```
    ///
    /// `type`: nil takes it from the file name's extension (`jpg`, `png`, `gif`, `webp` once `TIPWebP` is
    /// registered), or TIP's recommendation (GIF when animated, PNG when transparent, else JPEG) when the
    /// extension names no type. `quality`: 0...1 on TIP's (ImageIO's) scale, for lossy types; 0.575 is JFIF 85,
    /// 0.83 JFIF 95. Throws ``PipelineError`` (`encodingUnsupported` with the type in its user info when no
    /// registered codec encodes it, `failedToFinalizeImageDestination` when the file cannot be written).
    public func write(
        to url: URL, type: ImageType? = nil, quality: Float = 0.83, options: ImageEncodingOptions = [],
        catalogue: CodecCatalogue = .shared
    ) throws(PipelineError) {
        let resolved =
            type ?? ImageType(fileExtension: url.pathExtension) ?? CodecCatalogue.recommendedImageType(for: self)
        try catalogue.encodeImage(
            self, toFilePath: url.path, type: resolved, quality: quality, options: options, atomic: true)
    }
}
