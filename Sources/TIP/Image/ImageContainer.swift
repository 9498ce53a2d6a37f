import Foundation

/// A decoded image: one ``Bitmap``, or the frames of an animation with their durations and loop count.
///
/// ```swift
/// let options = ImageDecodingOptions(
///     targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)
/// let (container, _) = try CodecCatalogue.shared.decodeImage(data, options: options)
/// print(container.dimensions, container.frameCount)
/// ```
///
/// Immutable and safe to share between threads.
public final class ImageContainer: Sendable {
    /// The frames, at least one. A static image has exactly one.
    public let frames: [Bitmap]
    /// Seconds each frame is shown; empty for a static image, else one per frame.
    public let frameDurations: [TimeInterval]
    /// How many times an animation plays; 0 means forever. Always 0 for a static image.
    public let loopCount: Int
    /// True when this image was decoded from incomplete data (missing rows or frames, or missing
    /// progressive scans): usable, but not the whole image.
    public let isPartial: Bool
    /// The identifiers of the processors that made this image from a decoded one, in the order they ran
    /// (see ``processed(by:context:)``); empty for an image as decoded.
    public let processorIdentifiers: [String]

    /// Seconds a frame is shown when its duration is unknown or unusable.
    public static let defaultFrameDuration: TimeInterval = 0.1

    /// A static image; `processorIdentifiers` says which processors made it (default none).
    public init(image: Bitmap, isPartial: Bool = false, processorIdentifiers: [String] = []) {
        self.frames = [image]
        self.frameDurations = []
        self.loopCount = 0
        self.isPartial = isPartial
        self.processorIdentifiers = processorIdentifiers
    }

    /// An animation (or a static image when `frames` has one element). Durations that do not match
    /// the frame count, or are not finite and positive, are replaced by ``defaultFrameDuration``.
    /// Returns nil when `frames` is empty. `processorIdentifiers` says which processors made it (default none).
    public init?(
        animatedFrames frames: [Bitmap], frameDurations: [TimeInterval], loopCount: Int, isPartial: Bool = false,
        processorIdentifiers: [String] = []
    ) {
        guard !frames.isEmpty else { return nil }
        self.frames = frames
        if frames.count == 1 {
            self.frameDurations = []
            self.loopCount = 0
        } else {
            if frameDurations.count == frames.count {
                self.frameDurations = frameDurations.map {
                    $0.isFinite && $0 > 0 ? $0 : ImageContainer.defaultFrameDuration
                }
            } else {
                self.frameDurations = Array(repeating: ImageContainer.defaultFrameDuration, count: frames.count)
            }
            self.loopCount = max(0, loopCount)
        }
        self.isPartial = isPartial
        self.processorIdentifiers = processorIdentifiers
    }

    /// The first frame (the whole image when static).
    public var image: Bitmap { frames[0] }
    /// Whether there is more than one frame.
    public var isAnimated: Bool { frames.count > 1 }
    /// Number of frames (1 when static).
    public var frameCount: Int { frames.count }
    /// Dimensions of the first frame, in pixels.
    public var dimensions: CGSize { frames[0].dimensions }
    /// Bytes all frames take in memory.
    public var sizeInMemory: Int { frames.reduce(0) { $0 + $1.memoryCost } }
    /// Total seconds of one loop of the animation (0 when static).
    public var totalDuration: TimeInterval { frameDurations.reduce(0, +) }

    /// The frame at `index`, or nil when out of range.
    public func frame(at index: Int) -> Bitmap? {
        frames.indices.contains(index) ? frames[index] : nil
    }

    /// Seconds the frame at `index` is shown; 0 when static or out of range.
    public func frameDuration(at index: Int) -> TimeInterval {
        frameDurations.indices.contains(index) ? frameDurations[index] : 0
    }

    /// This image with every frame resized to the target sizing (see
    /// ``ImageDecodingOptions/outputDimensions(width:height:)``), keeping the animation data and
    /// ``processorIdentifiers``. Returns `self` when nothing changes.
    public func scaledToTargetDimensions(
        _ targetDimensions: CGSize, contentMode: ContentMode, quality: InterpolationQuality = .default
    ) -> ImageContainer {
        let scaled = TargetSizing.pixelDimensions(
            width: image.width, height: image.height, targetDimensions: targetDimensions, contentMode: contentMode)
        if scaled.width == image.width && scaled.height == image.height { return self }
        let newFrames = frames.map {
            Resampler.resample($0, width: scaled.width, height: scaled.height, quality: quality)
        }
        return replacingFrames(newFrames, processorIdentifiers: processorIdentifiers)
    }

    /// This image with `frames` (as many as it has) in place of its own, the same durations, loop count and
    /// partial flag, and `processorIdentifiers`.
    func replacingFrames(_ frames: [Bitmap], processorIdentifiers: [String]) -> ImageContainer {
        precondition(frames.count == self.frames.count, "replacing frames needs one bitmap per frame")
        if frames.count == 1 {
            return ImageContainer(image: frames[0], isPartial: isPartial, processorIdentifiers: processorIdentifiers)
        }
        guard
            let container = ImageContainer(
                animatedFrames: frames, frameDurations: frameDurations, loopCount: loopCount,
                isPartial: isPartial, processorIdentifiers: processorIdentifiers)
        else {
            preconditionFailure("an animation has frames")
        }
        return container
    }
}
