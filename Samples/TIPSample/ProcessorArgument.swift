import ArgumentParser
import Foundation
import TIP

/// A processor named on the command line: `crop`, `fit`, `circle`, `rounded=R`, `blur=SIGMA`, `grayscale`.
/// `crop` and `fit` work to the command's target size (`--size`).
struct ProcessorArgument: ExpressibleByArgument {
    private enum Kind {
        case crop, fit, circle, grayscale
        case rounded(Double)
        case blur(Double)
    }

    private let kind: Kind

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        let value = parts.count == 2 ? Double(parts[1]) : nil
        switch (parts[0], parts.count) {
        case ("crop", 1): kind = .crop
        case ("fit", 1): kind = .fit
        case ("circle", 1): kind = .circle
        case ("grayscale", 1): kind = .grayscale
        case ("rounded", 2):
            guard let value else { return nil }
            kind = .rounded(value)
        case ("blur", 2):
            guard let value else { return nil }
            kind = .blur(value)
        default:
            return nil
        }
    }

    /// The processor; `crop` and `fit` work to the context's target size (`decode`).
    var processor: any ImageProcessor { processor(workingTo: nil) }

    /// The processor; `crop` and `fit` work to `size` (nil: the context's target size). `fetch` gives them `--size`,
    /// so that fetches at the image's own size (browse's full-size views) are cropped or fitted too.
    func processor(workingTo size: CGSize?) -> any ImageProcessor {
        switch kind {
        case .crop: ImageProcessors.CropToFill(size: size)
        case .fit: ImageProcessors.ResizeToFit(size: size, upscale: true)
        case .circle: ImageProcessors.Circle()
        case .grayscale: ImageProcessors.Grayscale()
        case .rounded(let radius): ImageProcessors.RoundedCorners(radius: radius)
        case .blur(let sigma): ImageProcessors.GaussianBlur(sigma: sigma)
        }
    }

    /// The size the processor (from ``processor(workingTo:)`` with `size`) makes of a `width` x `height` image.
    func outputSize(width: Int, height: Int, workingTo size: CGSize) -> (width: Int, height: Int) {
        switch kind {
        case .crop:
            return (Int(size.width.rounded(.up)), Int(size.height.rounded(.up)))
        case .fit:
            return ImageDecodingOptions(targetDimensions: size, targetContentMode: .scaleAspectFit)
                .outputDimensions(width: width, height: height)
        case .circle:
            return (min(width, height), min(width, height))
        case .grayscale, .rounded, .blur:
            return (width, height)
        }
    }

    static var names: String { "crop, fit, circle, rounded=R, blur=SIGMA, grayscale" }
}
