import Foundation
import TIP

/// The processing rows: Gaussian blur against Pillow's `GaussianBlur` and pyvips' `gaussblur` on the same
/// pixels (time, and PSNR against Pillow's output), and a crop-to-fill 200x200 thumbnail of carnival.jpg
/// against pyvips `thumbnail_buffer(crop="centre")`.
enum ProcessingBenchmarks {
    static let sigmas: [Double] = [1, 2, 5, 10, 20]

    static func run() throws {
        let carnival = try Inputs.fixture("carnival.jpg") ?? Inputs.generated(.jpeg, width: 1880, height: 1253)
        let photo = try CodecCatalogue.shared.decodeImage(carnival).container.image
        let translucent = translucentCopy(of: photo)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tip-benchmarks/processing")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let inputs: [(key: String, label: String, bitmap: Bitmap, mode: String)] = [
            ("photo", "carnival.jpg \(photo.width)x\(photo.height), opaque", photo, "RGBX"),
            ("alpha", "carnival.jpg with an alpha gradient, premultiplied", translucent, "RGBa"),
        ]
        var peerArguments: [String] = []
        for input in inputs {
            let path = directory.appendingPathComponent("\(input.key).raw").path
            try rawBytes(input.bitmap).write(to: URL(fileURLWithPath: path))
            peerArguments += [
                "--blur-raw", "\(input.key):\(path):\(input.bitmap.width):\(input.bitmap.height):\(input.mode)",
            ]
        }
        peerArguments +=
            sigmas.flatMap { ["--sigma", Harness.format($0, digits: 1)] } + ["--blur-out", directory.path]

        // Ours first (the peers' outputs are needed for PSNR only). Wall time, then process CPU time: on this
        // shared machine the CPU figures hold when others' load makes wall times swing.
        var ours: [String: (wall: Samples, cpu: Samples, output: Bitmap)] = [:]
        for input in inputs {
            for sigma in sigmas {
                let blur = ImageProcessors.GaussianBlur(sigma: sigma)
                var output = input.bitmap
                let wall = try Harness.measure {
                    output = try blur.process(input.bitmap, context: ImageProcessingContext())
                }
                let cpu = try Harness.measureCPU {
                    _ = try blur.process(input.bitmap, context: ImageProcessingContext())
                }
                ours["\(input.key):\(Harness.format(sigma, digits: 1))"] = (wall, cpu, output)
            }
        }

        // Crop-to-fill thumbnail: decode to aspect-fill 200x200 (300x200), keep the centre.
        let thumbnailOptions = ImageDecodingOptions(
            targetDimensions: CGSize(width: 200, height: 200), targetContentMode: .scaleAspectFill)
        let thumbnailContext = ImageProcessingContext(
            targetDimensions: thumbnailOptions.targetDimensions, targetContentMode: .scaleAspectFill)
        let crop: [any ImageProcessor] = [.cropToFill()]
        let thumbnail = try CodecCatalogue.shared.decodeImage(carnival, options: thumbnailOptions).container.processed(
            by: crop, context: thumbnailContext)
        guard thumbnail.image.width == 200 && thumbnail.image.height == 200 else {
            throw BenchmarkFailure("crop-to-fill made \(thumbnail.dimensions)")
        }
        let samples = try DownloadBenchmarks.interleaved([
            {
                _ = try CodecCatalogue.shared.decodeImage(carnival, options: thumbnailOptions).container.processed(
                    by: crop, context: thumbnailContext)
            },
            { _ = try CodecCatalogue.shared.decodeImage(carnival, options: thumbnailOptions) },
        ])
        let (cropped, decodeOnly) = (samples[0], samples[1])
        let croppedCPU = try Harness.measureCPU {
            _ = try CodecCatalogue.shared.decodeImage(carnival, options: thumbnailOptions).container.processed(
                by: crop, context: thumbnailContext)
        }

        let jpegPath = try Inputs.temporaryFile(carnival, name: "crop-thumbnail.jpg")
        let (peers, peersCPU) = Peers.runWithCPU(arguments: peerArguments + ["--crop-thumbnail-jpeg", jpegPath])

        for input in inputs {
            for sigma in sigmas {
                let key = "\(input.key):\(Harness.format(sigma, digits: 1))"
                guard let (samples, cpu, output) = ours[key] else { continue }
                var psnrNote = "PSNR vs Pillow: not measured"
                let pillowOutput = directory.appendingPathComponent(
                    "pillow-\(input.key)-\(Harness.format(sigma, digits: 1)).raw")
                if let data = try? Data(contentsOf: pillowOutput) {
                    psnrNote = "PSNR vs Pillow \(Harness.format(psnr(output, data), digits: 1)) dB (target ≥ 35)"
                }
                let name = "Gaussian blur sigma \(Harness.format(sigma, digits: 0)), \(input.label)"
                var fastest: (String, Samples)?
                for (peer, label) in [("pillow_blur", "Pillow GaussianBlur"), ("pyvips_blur", "pyvips gaussblur")] {
                    guard let peerSamples = peers["\(peer):\(key)"] else { continue }
                    Harness.report(
                        name, ours: samples, baselineName: label, baseline: peerSamples, target: nil,
                        note: "information: peer")
                    if fastest == nil || peerSamples.median < fastest!.1.median { fastest = (label, peerSamples) }
                }
                if let fastest {
                    Harness.report(
                        name + " vs faster peer", ours: samples, baselineName: fastest.0, baseline: fastest.1,
                        target: 1.0, note: psnrNote)
                    let peerKey = fastest.0 == "pyvips gaussblur" ? "pyvips_blur:\(key)" : "pillow_blur:\(key)"
                    if let peerCPU = peersCPU[peerKey] {
                        Harness.report(
                            name + " (CPU)", ours: cpu, baselineName: fastest.0 + " (CPU)",
                            baseline: Samples(median: peerCPU, min: peerCPU, max: peerCPU),
                            target: nil, note: "process CPU time of one run, all threads")
                    }
                } else {
                    print("\(name): ours \(samples) — no peer available; \(psnrNote)")
                }
            }
        }

        let thumbName = "carnival.jpg to a 200x200 crop-to-fill thumbnail (decode at 300x200 + centre crop)"
        Harness.report(
            thumbName, ours: cropped, baselineName: "decode to 300x200 alone", baseline: decodeOnly, target: nil,
            note: "diagnostic: what the crop adds")
        if let pillow = peers["pillow_crop_thumbnail"] {
            Harness.report(
                thumbName, ours: cropped, baselineName: "Pillow draft + ImageOps.fit", baseline: pillow, target: nil,
                note: "information: peer")
        }
        if let vips = peers["pyvips_crop_thumbnail"] {
            Harness.report(
                thumbName, ours: cropped, baselineName: "pyvips thumbnail_buffer(crop=\"centre\")", baseline: vips,
                target: 0.6)
            if let vipsCPU = peersCPU["pyvips_crop_thumbnail"] {
                Harness.report(
                    thumbName + " (CPU)", ours: croppedCPU,
                    baselineName: "pyvips thumbnail_buffer(crop=\"centre\") (CPU)",
                    baseline: Samples(median: vipsCPU, min: vipsCPU, max: vipsCPU), target: nil,
                    note: "process CPU time of one run, all threads")
            }
        }
    }

    /// `photo` with a smooth alpha gradient and a transparent band, premultiplied: an image with alpha
    /// of the same size and content.
    static func translucentCopy(of photo: Bitmap) -> Bitmap {
        var out = photo.converted(to: .rgba8Premultiplied)
        let width = out.width, height = out.height, stride = out.bytesPerRow
        out.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for y in 0..<height {
                for x in 0..<width {
                    let p = base + y * stride + x * 4
                    let band = (x / 97) % 5 == 0
                    let alpha = band ? 0 : 40 + 215 * (x + y) / (width + height)
                    for c in 0..<3 {
                        p.storeBytes(
                            of: UInt8((Int(p.load(fromByteOffset: c, as: UInt8.self)) * alpha + 127) / 255),
                            toByteOffset: c, as: UInt8.self)
                    }
                    p.storeBytes(of: UInt8(alpha), toByteOffset: 3, as: UInt8.self)
                }
            }
        }
        return out
    }

    /// The pixels of `bitmap` (4 bytes each) without row padding.
    static func rawBytes(_ bitmap: Bitmap) -> Data {
        var data = Data(count: bitmap.width * bitmap.height * 4)
        let rowBytes = bitmap.width * 4
        data.withUnsafeMutableBytes { out in
            bitmap.withUnsafeBytes { bytes in
                for y in 0..<bitmap.height {
                    (out.baseAddress! + y * rowBytes).copyMemory(
                        from: bytes.baseAddress! + y * bitmap.bytesPerRow, byteCount: rowBytes)
                }
            }
        }
        return data
    }

    /// PSNR in dB between `bitmap` and `raw` (the same pixels' 4 bytes each, unpadded) over the colour
    /// channels, and alpha when the bitmap has it.
    static func psnr(_ bitmap: Bitmap, _ raw: Data) -> Double {
        let channels = bitmap.format.hasAlpha ? 4 : 3
        var sum = 0.0
        raw.withUnsafeBytes { other in
            bitmap.withUnsafeBytes { bytes in
                for y in 0..<bitmap.height {
                    for x in 0..<bitmap.width {
                        for c in 0..<channels {
                            let d =
                                Double(bytes[y * bitmap.bytesPerRow + x * 4 + c])
                                - Double(other[(y * bitmap.width + x) * 4 + c])
                            sum += d * d
                        }
                    }
                }
            }
        }
        let mse = sum / Double(bitmap.width * bitmap.height * channels)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
