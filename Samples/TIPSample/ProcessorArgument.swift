import ArgumentParser
import Foundation
import TIP

/// A processor named on the command line: `crop`, `fit`, `circle`, `rounded=R`, `blur=SIGMA`, `grayscale`.
/// `crop` and `fit` work to the command's target size (`--size`).
struct ProcessorArgument: ExpressibleByArgument {
    let processor: any ImageProcessor

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        let value = parts.count == 2 ? Double(parts[1]) : nil
        switch (parts[0], parts.count) {
        case ("crop", 1): processor = ImageProcessors.CropToFill()
        case ("fit", 1): processor = ImageProcessors.ResizeToFit(upscale: true)
        case ("circle", 1): processor = ImageProcessors.Circle()
        case ("grayscale", 1): processor = ImageProcessors.Grayscale()
        case ("rounded", 2):
            guard let value else { return nil }
            processor = ImageProcessors.RoundedCorners(radius: value)
        case ("blur", 2):
            guard let value else { return nil }
            processor = ImageProcessors.GaussianBlur(sigma: value)
        default:
            return nil
        }
    }

    static var names: String { "crop, fit, circle, rounded=R, blur=SIGMA, grayscale" }
}
