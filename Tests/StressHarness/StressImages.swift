import Foundation
import TIP

/// The images a stress run serves: JPEGs and PNGs of assorted sizes, deterministic for a seed, with the
/// pixels a full-size decode must give.
struct StressImages: Sendable {
    struct Image: Sendable {
        var path: String
        var data: Data
        var width: Int
        var height: Int
        /// The decoded original, for exactness checks of cached images.
        var decoded: Bitmap
    }

    let images: [Image]

    init(count: Int, seed: UInt64) throws {
        var state = seed | 1
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        var made: [Image] = []
        for index in 0..<count {
            let width = 40 + next(220)
            let height = 40 + next(220)
            guard var bitmap = Bitmap(width: width, height: height, format: .rgbx8) else { throw POSIXError(.ENOMEM) }
            let base = SIMD4<UInt8>(UInt8(next(256)), UInt8(next(256)), UInt8(next(256)), 255)
            for y in 0..<height {
                for x in 0..<width {
                    let shade = UInt8(truncatingIfNeeded: (x * 3 + y * 5 + index * 17) & 0x3F)
                    bitmap.setPixel(x: x, y: y, SIMD4(base.x &+ shade, base.y &+ shade / 2, base.z &+ shade * 2, 255))
                }
            }
            let type: ImageType = index % 2 == 0 ? .jpeg : .png
            let data = try CodecCatalogue.shared.encodeImage(ImageContainer(image: bitmap), type: type, quality: 0.85)
            let decoded = try CodecCatalogue.shared.decodeImage(data).container.image
            made.append(
                Image(
                    path: "/s\(index).\(type == .jpeg ? "jpg" : "png")", data: data, width: width, height: height,
                    decoded: decoded))
        }
        images = made
    }
}
