import TIP

/// The encodings the service answers with (`format=`).
public enum ThumbnailFormat: String, Sendable, CaseIterable {
    /// JPEG at the service's quality (default 85), no alpha.
    case jpeg
    /// PNG, lossless, alpha kept.
    case png
    /// Lossy WebP at the service's quality (TIPWebP).
    case webp

    /// The TIP image type of the encoding.
    public var imageType: ImageType {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        }
    }

    /// The `Content-Type` of the response.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }
}

/// How the image meets the box (`fit=`).
public enum ThumbnailFit: String, Sendable, CaseIterable {
    /// Exactly w×h: scaled to cover the box, centred, the overflow cut off (`ImageProcessors.cropToFill`).
    case crop
    /// Inside w×h, aspect ratio kept, never enlarged (`ImageProcessors.resizeToFit`).
    case fit
}
