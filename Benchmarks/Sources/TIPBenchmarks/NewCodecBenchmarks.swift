import Foundation
import TIP

/// The second codec wave (`--only codecs2`): TIFF, BMP, TGA, ICO and APNG decoding through the
/// catalogue's codecs against the library each is built on (or its peer) called directly, and against
/// Pillow and pyvips where they read the format, all on the same files in the same run.
enum NewCodecBenchmarks {
    /// One input file: how it was made, its bytes, and the baseline that decodes it directly.
    struct Input {
        let name: String
        let data: Data
        let baselineName: String
        let baseline: () throws -> Void
        /// Also measured as a decode to fit 400x400 against the peers' thumbnails.
        var thumbnail = false
    }

    static func run() throws {
        let photo = Inputs.photo(width: 1880, height: 1253)
        let translucent = withAlpha(photo)
        func encode(_ codec: any ImageCodec, _ bitmap: Bitmap) throws -> Data {
            try Inputs.encode(ImageContainer(image: bitmap), with: codec)
        }
        func stb(_ data: Data) -> () throws -> Void {
            { guard STBDirect.decode(data) != nil else { throw BenchmarkFailure("stb_image failed") } }
        }
        func tiff(_ data: Data) -> () throws -> Void {
            { guard TIFFDirect.decode(data) != nil else { throw BenchmarkFailure("libtiff failed") } }
        }
        let tiffRGB = try encode(TIFFCodec(), photo)
        let tiffRGBA = try encode(TIFFCodec(), translucent)
        let bmp24 = try encode(BMPCodec(), photo)
        let bmp32 = try encode(BMPCodec(), translucent)
        let tga24 = try encode(TGACodec(), photo)
        let tga32RLE = try encode(TGACodec(compression: .runLength), translucent)
        var inputs = [
            Input(
                name: "TIFF RGB LZW 1880x1253", data: tiffRGB, baselineName: "libtiff TIFFReadRGBAImageOriented direct",
                baseline: tiff(tiffRGB), thumbnail: true),
            Input(
                name: "TIFF RGBA LZW 1880x1253", data: tiffRGBA,
                baselineName: "libtiff TIFFReadRGBAImageOriented direct",
                baseline: tiff(tiffRGBA)),
            Input(
                name: "BMP 24-bit 1880x1253", data: bmp24, baselineName: "stb_image direct (RGBA)",
                baseline: stb(bmp24), thumbnail: true),
            Input(
                name: "BMP 32-bit BGRA 1880x1253", data: bmp32, baselineName: "stb_image direct (RGBA)",
                baseline: stb(bmp32)),
            Input(
                name: "TGA 24-bit 1880x1253", data: tga24, baselineName: "stb_image direct (RGBA)",
                baseline: stb(tga24), thumbnail: true),
            Input(
                name: "TGA 32-bit RLE 1880x1253", data: tga32RLE, baselineName: "stb_image direct (RGBA)",
                baseline: stb(tga32RLE)),
        ]
        let (ico, icoEntry) = try icon(from: photo)
        inputs.append(
            Input(
                name: "ICO, PNG entries 16-256 (the 256 one decoded)", data: ico,
                baselineName: "libpng simplified API direct on the 256x256 entry",
                baseline: { guard PNGDirect.decode(icoEntry) else { throw BenchmarkFailure("libpng failed") } }))
        let (apng, framePNGs) = try animation()
        inputs.append(
            Input(
                name: "APNG 12 frames 480x360", data: apng,
                baselineName: "libpng simplified API direct on each frame's stand-alone PNG (no compositing)",
                baseline: {
                    for frame in framePNGs where !PNGDirect.decode(frame) { throw BenchmarkFailure("libpng failed") }
                }))

        // The peers, on the same files, in this run.
        var arguments: [String] = []
        for (index, input) in inputs.enumerated() {
            let path = try Inputs.temporaryFile(input.data, name: "codecs2-\(index)")
            arguments += [input.name.hasPrefix("APNG") ? "--frames" : "--load", "\(index)=\(path)"]
            if input.thumbnail { arguments += ["--thumbnail", "\(index)=\(path)"] }
        }
        let peers = Peers.run(arguments: arguments)

        let catalogue = CodecCatalogue.shared
        for (index, input) in inputs.enumerated() {
            let (image, _) = try catalogue.decodeImage(input.data)
            let name = "\(input.name): full decode (\(input.data.count / 1024) KiB)"
            let samples = try DownloadBenchmarks.interleaved([
                { _ = try catalogue.decodeImage(input.data) },
                input.baseline,
            ])
            Harness.report(
                name, ours: samples[0], baselineName: input.baselineName, baseline: samples[1], target: 1.05,
                note: image.isAnimated ? "\(image.frameCount) frames composited" : "")
            for (key, peer) in [
                ("pillow_load", "Pillow open + load"), ("pyvips_load", "pyvips new_from_buffer + write_to_memory"),
                ("pillow_frames", "Pillow seek + load of every frame"),
            ] {
                if let measured = peers["\(key):\(index)"] {
                    Harness.report(
                        name, ours: samples[0], baselineName: peer, baseline: measured, target: nil,
                        note: "information: peer")
                }
            }
            guard input.thumbnail else { continue }
            let options = ImageDecodingOptions(
                targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)
            let thumb = try catalogue.decodeImage(input.data, options: options).container.image
            let ours = try Harness.measure { _ = try catalogue.decodeImage(input.data, options: options) }
            let thumbName = "\(input.name) to \(thumb.width)x\(thumb.height)"
            var fastest: (String, Samples)?
            for (key, peer) in [
                ("pillow_thumbnail", "Pillow thumbnail"), ("pyvips_thumbnail", "pyvips thumbnail_buffer"),
            ] {
                guard let measured = peers["\(key):\(index)"] else { continue }
                Harness.report(
                    thumbName, ours: ours, baselineName: peer, baseline: measured, target: nil,
                    note: "information: peer")
                if fastest == nil || measured.median < fastest!.1.median { fastest = (peer, measured) }
            }
            if let fastest {
                Harness.report(
                    thumbName, ours: ours, baselineName: "\(fastest.0) (faster peer)", baseline: fastest.1, target: 0.85
                )
            }
        }
    }

    /// `bitmap` with an alpha ramp across it (premultiplied), so encoders write their alpha layouts.
    static func withAlpha(_ bitmap: Bitmap) -> Bitmap {
        var out = Bitmap(width: bitmap.width, height: bitmap.height, format: .rgba8Premultiplied)!
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                let a = UInt32(64 + 191 * x / max(bitmap.width - 1, 1))
                func pm(_ c: UInt8) -> UInt8 { UInt8((UInt32(c) * a + 127) / 255) }
                out.setPixel(x: x, y: y, SIMD4(pm(p[0]), pm(p[1]), pm(p[2]), UInt8(a)))
            }
        }
        return out
    }

    /// An icon with PNG entries of 16, 32, 48 and 256 pixels (made from `photo`), and the 256 entry alone.
    static func icon(from photo: Bitmap) throws -> (Data, Data) {
        let sizes = [16, 32, 48, 256]
        let entries = try sizes.map { side in
            let entry = ImageContainer(image: photo).scaledToTargetDimensions(
                CGSize(width: side, height: side), contentMode: .scaleToFill)
            return try Inputs.encode(entry, with: PNGCodec())
        }
        var file = Data([0, 0, 1, 0, UInt8(sizes.count), 0])
        var offset = 6 + 16 * sizes.count
        for (side, entry) in zip(sizes, entries) {
            let little = { (value: Int) in (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
            file += [UInt8(side & 0xFF), UInt8(side & 0xFF), 0, 0, 1, 0, 32, 0] + little(entry.count) + little(offset)
            offset += entry.count
        }
        for entry in entries { file += entry }
        return (file, entries[3])
    }

    /// A 12-frame APNG (a photo with a block moving across it) and each frame as a stand-alone PNG:
    /// the APNG's frame data is exactly those PNGs' image data.
    static func animation() throws -> (Data, [Data]) {
        let base = Inputs.photo(width: 480, height: 360)
        let frames = (0..<12).map { index -> Bitmap in
            var frame = base
            for y in 100..<220 {
                for x in (index * 30)..<(index * 30 + 120) {
                    frame.setPixel(x: x, y: y, SIMD4(UInt8(index * 20), 40, 200, 255))
                }
            }
            return frame
        }
        let animation = ImageContainer(
            animatedFrames: frames, frameDurations: Array(repeating: 0.08, count: 12), loopCount: 0)!
        let apng = try Inputs.encode(animation, with: PNGCodec())
        let stills = try frames.map { try Inputs.encode(ImageContainer(image: $0), with: PNGCodec()) }
        return (apng, stills)
    }
}
