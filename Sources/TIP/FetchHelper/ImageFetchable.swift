import Foundation

/// What an ``ImageFetchHelper`` displays into (TIP's `TIPImageFetchable` plus the facts TIP reads from a
/// `UIView`): a settable image, the pixel size and content mode the image is shown at, and whether the target
/// is visible now.
///
/// ```swift
/// final class Tile: ImageFetchable, @unchecked Sendable {   // only used on the callback queue
///     var fetchedImageContainer: ImageContainer?
///     var pixelSize = CGSize(width: 300, height: 300)
///     var contentMode = ContentMode.scaleAspectFill
///     var isVisible = true
/// }
/// ```
///
/// The helper reads and writes these members only on its callback queue.
public protocol ImageFetchable: AnyObject, Sendable {
    /// The image shown; the helper sets it (nil removes the image).
    var fetchedImageContainer: ImageContainer? { get set }
    /// The target's size in pixels; requests made from a URL use it as their target dimensions, and nothing is
    /// fetched while either side is 0.
    var pixelSize: CGSize { get }
    /// How the target fits its image (requests made from a URL use it).
    var contentMode: ContentMode { get }
    /// Whether the target is on screen (TIP: in a window and not hidden).
    var isVisible: Bool { get }
}

extension ImageFetchable {
    /// Whether an image is shown.
    public var hasFetchedImage: Bool { fetchedImageContainer != nil }
}
