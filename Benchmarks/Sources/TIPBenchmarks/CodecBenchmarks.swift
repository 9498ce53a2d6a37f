import Foundation
import TIP

/// The foundation rows of the README's benchmark table: JPEG, thumbnail, PNG and progressive streaming.
enum CodecBenchmarks {
    static func run() throws {
        let turbo = TurboJPEGDirect()
        let carnivalJPEG = try Inputs.fixture("carnival.jpg") ?? Inputs.generated(.jpeg, width: 1880, height: 1253)
        let bigJPEG = try Inputs.generated(.jpeg, width: 4000, height: 3000)
        let decoder = JPEGCodec().decoder

        // 1. Full JPEG decode through the codec vs tjDecompress2 direct.
        for (name, data) in [("carnival.jpg", carnivalJPEG), ("generated 4000x3000", bigJPEG)] {
            let ours = try Harness.measure { _ = try decoder.decode(data, options: ImageDecodingOptions()) }
            let base = Harness.measure { turbo.decode(data) }
            Harness.report(
                "full JPEG decode (\(name))", ours: ours, baselineName: "tjDecompress2 direct", baseline: base,
                target: 1.05)
        }

        // 2. carnival.jpg to a 400 px wide image vs Pillow/pyvips, and vs TurboJPEG at the chosen scale; then a
        // baseline file without restart markers (TIP's entropy decoder; carnival.jpg's bands decode in parallel).
        let thumbOptions = ImageDecodingOptions(
            targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)
        /// `data` to fit 400x400 against TurboJPEG at the same DCT scale, reported as `name` to the result's size.
        func thumbnailRow(_ name: String, _ data: Data, target: Double) throws -> (ImageContainer, Samples) {
            let thumb = try decoder.decode(data, options: thumbOptions)
            let ours = try Harness.measure { _ = try decoder.decode(data, options: thumbOptions) }
            let denom = turbo.scaleDenominator(data, for: thumbOptions)
            let limit = Harness.measure { turbo.decode(data, num: 1, denom: denom) }
            Harness.report(
                "\(name) to \(thumb.image.width)x\(thumb.image.height)", ours: ours,
                baselineName: "TurboJPEG at 1/\(denom), no resize", baseline: limit, target: target)
            return (thumb, ours)
        }
        let (thumb, ours) = try thumbnailRow("JPEG", carnivalJPEG, target: 1.15)
        _ = try thumbnailRow("baseline JPEG (generated 4000x3000)", bigJPEG, target: 1.0)

        // 3. PNG decode.
        let png = try Inputs.fixture("carnival.png") ?? Inputs.generated(.png, width: 1880, height: 1253)
        let pngDecoder = PNGCodec().decoder
        let pngOurs = try Harness.measure { _ = try pngDecoder.decode(png, options: ImageDecodingOptions()) }

        // Peers, measured now, in the same run.
        let jpegPath = try Inputs.temporaryFile(carnivalJPEG, name: "thumbnail.jpg")
        let pngPath = try Inputs.temporaryFile(png, name: "decode.png")
        let peers = Peers.run(thumbnailJPEG: jpegPath, png: pngPath)
        var fastest: (String, Samples)?
        for name in ["pillow_thumbnail", "pyvips_thumbnail"] {
            guard let samples = peers[name] else { continue }
            Harness.report(
                "JPEG to \(thumb.image.width)x\(thumb.image.height)", ours: ours, baselineName: name, baseline: samples,
                target: nil)
            if fastest == nil || samples.median < fastest!.1.median { fastest = (name, samples) }
        }
        if let fastest {
            Harness.report(
                "JPEG to \(thumb.image.width)x\(thumb.image.height) vs faster peer", ours: ours,
                baselineName: fastest.0, baseline: fastest.1, target: 0.85)
        }
        if let pillow = peers["pillow_png_load"] {
            Harness.report("PNG decode", ours: pngOurs, baselineName: "Pillow open+load", baseline: pillow, target: 1.0)
        }
        if let vips = peers["pyvips_png_load"] {
            Harness.report(
                "PNG decode", ours: pngOurs, baselineName: "pyvips (libspng), stretch", baseline: vips, target: nil)
        }

        // 4. A complete progressive JPEG through the codec (TIP's own AC decoder, libjpeg for the DC scans and
        //    the pixels) vs TurboJPEG at the same DCT scale, in CPU time (the codec's resampling included).
        let pjpeg =
            try Inputs.fixture("carnival.pjpg")
            ?? Inputs.generated(.jpeg, width: 1880, height: 1253, options: [.progressive])
        for (label, side) in [("full size", 0), ("to fit 400x400", 400), ("to fit 200x200", 200)] {
            let options = ImageDecodingOptions(
                targetDimensions: CGSize(width: side, height: side), targetContentMode: .scaleAspectFit)
            let image = try decoder.decode(pjpeg, options: options).image
            let denominator = turbo.scaleDenominator(pjpeg, for: options)
            let ours = try Harness.measureCPU { _ = try decoder.decode(pjpeg, options: options) }
            let base = Harness.measureCPU { turbo.decode(pjpeg, num: 1, denom: denominator) }
            Harness.report(
                "progressive JPEG decode, \(label) (\(image.width)x\(image.height))", ours: ours,
                baselineName: "TurboJPEG at 1/\(denominator) (CPU)", baseline: base, target: 1.0)
        }

        // 5. Progressive JPEG streamed in 16 KiB chunks, each completed scan rendered (the default
        //    FullFrame policy renders every full-frame update), plus the final image, vs one complete TurboJPEG
        //    decode at the same DCT scale (PERFORMANCE.md's baseline; TIP's own complete decode is faster now).
        for (label, target) in [("full size", CGSize.zero), ("400x400 fit", CGSize(width: 400, height: 400))] {
            var chunkedOffset = 0
            var renders = 0
            let streamOptions = ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFit)
            let stream = try Harness.measureCPU {
                (chunkedOffset, renders) = try streamProgressive(
                    pjpeg, decoder: decoder, options: streamOptions, chunkSize: 16 * 1024)
            }
            let denominator = turbo.scaleDenominator(pjpeg, for: streamOptions)
            let base = Harness.measureCPU { turbo.decode(pjpeg, num: 1, denom: denominator) }
            // Where the first scan becomes available, to 1 KiB (untimed): 16 KiB chunks round it up.
            let (exactOffset, _) = try streamProgressive(
                pjpeg, decoder: decoder, options: streamOptions, chunkSize: 1024)
            let percent = { (offset: Int) in Harness.format(Double(offset) / Double(pjpeg.count) * 100, digits: 2) }
            Harness.report(
                "progressive JPEG streamed, \(label) (\(renders) renders)", ours: stream,
                baselineName: "one complete TurboJPEG decode at 1/\(denominator) (CPU)", baseline: base, target: 2.5,
                note: "first scan shown after \(percent(exactOffset))% of the bytes fed 1 KiB at a time, "
                    + "\(percent(chunkedOffset))% in 16 KiB chunks (target ≤ 5%)")
        }
    }

    /// Feeds `data` in chunks of `chunkSize` bytes, rendering each completed scan; returns the byte offset
    /// at which the first scan was shown and the number of renders.
    static func streamProgressive(
        _ data: Data, decoder: any ImageDecoder, options: ImageDecodingOptions, chunkSize: Int
    ) throws -> (Int, Int) {
        let context = decoder.makeContext(expectedLength: data.count, options: options)
        var offset = 0
        var first = 0
        var renders = 0
        while offset < data.count {
            let end = min(offset + chunkSize, data.count)
            let result = try context.append(data.subdata(in: offset..<end))
            offset = end
            if result == .didLoadFrame, offset < data.count {
                if try context.render(
                    mode: .fullFrameProgress, targetDimensions: options.targetDimensions,
                    targetContentMode: options.targetContentMode) != nil
                {
                    renders += 1
                    if first == 0 { first = offset }
                }
            }
        }
        _ = try context.finalize()
        guard
            try context.render(
                mode: .completeImage, targetDimensions: options.targetDimensions,
                targetContentMode: options.targetContentMode) != nil
        else {
            throw ImageDecodingError.truncatedData
        }
        return (first, renders + 1)
    }
}
