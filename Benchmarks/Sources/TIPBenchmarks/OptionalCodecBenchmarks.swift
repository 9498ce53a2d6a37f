import Foundation
import TIP

// The thumbnail choice, to time libheif alone on the image the codec decodes.
@testable import TIPHEIF
// The resolution selection, to time OpenJPEG alone at the level the codec picks.
@testable import TIPJPEG2000

/// The `codecs3` rows: JPEG 2000 (TIPJPEG2000), HEIC and AVIF (TIPHEIF). Each codec's full decode
/// against the library called directly (same threads, same output), and the decode to fit 400x400
/// against Pillow (with pillow-heif for HEIC) and pyvips where they read the format, in the same run.
enum OptionalCodecBenchmarks {
    /// The picture every file is made from: carnival.jpg (1880x1253) when the fixtures are there.
    static func picture() throws -> Bitmap {
        if let data = Inputs.fixture("carnival.jpg") {
            return try CodecCatalogue.shared.decodeImage(data).container.image
        }
        return Inputs.photo(width: 1880, height: 1253)
    }

    static let thumbnailOptions = ImageDecodingOptions(
        targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)

    static func run() throws {
        TIPJPEG2000.register()
        TIPHEIF.register()
        let source = try picture()
        let sourcePNG = try Inputs.temporaryFile(
            CodecCatalogue.shared.encodeImage(ImageContainer(image: source), type: .png, quality: 1),
            name: "codecs3-source.png")

        var files: [(label: String, type: ImageType, data: Data, path: String)] = []
        func add(_ label: String, _ type: ImageType, quality: Float, name: String) throws {
            let start = DispatchTime.now().uptimeNanoseconds
            let data = try CodecCatalogue.shared.encodeImage(
                ImageContainer(image: source), type: type, quality: quality)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            print("note: \(label): \(data.count / 1024) KiB, encoded by the codec in \(Harness.format(seconds)) s")
            files.append((label, type, data, try Inputs.temporaryFile(data, name: name)))
        }
        try add("JPEG 2000 (q 0.8, RPCL, 6 levels)", .jpeg2000, quality: 0.8, name: "codecs3.jp2")
        if HEIFCodec.canEncode(.heic) { try add("HEIC (x265, q 0.8)", .heic, quality: 0.8, name: "codecs3.heic") }
        if HEIFCodec.canEncode(.avif) { try add("AVIF (aom, q 0.7)", .avif, quality: 0.7, name: "codecs3.avif") }
        // A camera-like HEIC with a 512-pixel thumbnail, written by pillow-heif (peers.py).
        let thumbnailHEIC = (FileManager.default.temporaryDirectory.path as NSString).appendingPathComponent(
            "tip-benchmarks/codecs3-thumbnail.heic")
        try? FileManager.default.removeItem(atPath: thumbnailHEIC)

        var peerArguments = ["--write-heic-with-thumbnail", sourcePNG, thumbnailHEIC, "512"]
        for file in files { peerArguments += ["--load", file.path, "--thumbnail", file.path] }
        // The thumbnail HEIC only exists once peers.py ran: its peer rows come from a second call.
        var peers = Peers.run(arguments: peerArguments)
        if let data = try? Data(contentsOf: URL(fileURLWithPath: thumbnailHEIC)) {
            files.append(("HEIC with a 512-px thumbnail (pillow-heif, q 0.8)", .heic, data, thumbnailHEIC))
            peers.merge(Peers.run(arguments: ["--thumbnail", thumbnailHEIC]), uniquingKeysWith: { $1 })
        } else {
            print("note: pillow-heif did not write a HEIC with a thumbnail; that row is skipped")
        }

        for file in files {
            let name = (file.path as NSString).lastPathComponent
            let decoder = try codec(for: file.type).decoder
            let full = try decoder.decode(file.data, options: ImageDecodingOptions()).image
            let label = "\(file.label), \(full.width)x\(full.height), \(file.data.count / 1024) KiB"
            if !file.label.contains("thumbnail") {
                let threads =
                    file.type == .jpeg2000 && full.width * full.height >= JPEG2000Decoding.parallelPixelThreshold
                    ? 2 : 1
                let samples = try DownloadBenchmarks.interleaved([
                    { _ = try decoder.decode(file.data, options: ImageDecodingOptions()) },
                    {
                        guard try direct(file.type, file.data, threads: threads) != nil else {
                            throw BenchmarkFailure("direct decode failed: \(name)")
                        }
                    },
                ])
                let baseline =
                    file.type == .jpeg2000
                    ? "OpenJPEG direct (opj_decode, \(threads) thread\(threads > 1 ? "s" : ""), + interleave to RGBA)"
                    : "libheif direct (heif_decode_image to interleaved RGBA)"
                Harness.report(
                    "full decode: \(label)", ours: samples[0], baselineName: baseline, baseline: samples[1],
                    target: 1.05)
                for (key, peer) in [
                    ("pillow_load", "Pillow open + load"), ("pyvips_load", "pyvips new_from_buffer + write_to_memory"),
                ] {
                    if let times = peers["\(key):\(name)"] {
                        Harness.report(
                            "full decode: \(label)", ours: samples[0], baselineName: peer, baseline: times, target: nil,
                            note: "information: peer")
                    }
                }
            }
            // Decode to fit 400x400.
            let thumb = try decoder.decode(file.data, options: thumbnailOptions).image
            let ours = try Harness.measure { _ = try decoder.decode(file.data, options: thumbnailOptions) }
            let rowName = "to \(thumb.width)x\(thumb.height): \(label)"
            var best: (name: String, samples: Samples)?
            for (key, peer) in [
                ("pillow_thumbnail", "Pillow thumbnail"), ("pyvips_thumbnail", "pyvips thumbnail_buffer"),
            ] {
                guard let times = peers["\(key):\(name)"] else {
                    print("note: \(peer) does not read \(name) (or is missing): no row")
                    continue
                }
                Harness.report(rowName, ours: ours, baselineName: peer, baseline: times, target: nil, note: "peer")
                if best == nil || times.median < best!.samples.median { best = (peer, times) }
            }
            if let best {
                Harness.report(
                    rowName, ours: ours, baselineName: "the faster peer: \(best.name)", baseline: best.samples,
                    target: 0.85)
            }
            // The same in process CPU time (all threads), which a loaded machine disturbs far less than
            // wall time: the peers are measured in their own process, before these rows.
            let oursCPU = try Harness.measureCPU { _ = try decoder.decode(file.data, options: thumbnailOptions) }
            var bestCPU: (name: String, samples: Samples)?
            for (key, peer) in [
                ("pillow_thumbnail", "Pillow thumbnail"), ("pyvips_thumbnail", "pyvips thumbnail_buffer"),
            ] {
                guard let times = peers["cpu:\(key):\(name)"] else { continue }
                if bestCPU == nil || times.median < bestCPU!.samples.median { bestCPU = (peer, times) }
            }
            if let bestCPU {
                Harness.report(
                    "\(rowName) (CPU)", ours: oursCPU, baselineName: "CPU of the peer with the least: \(bestCPU.name)",
                    baseline: bestCPU.samples, target: 0.85)
            }
            if file.type != .jpeg2000 {
                // The limit with this libheif: decoding the image the codec picks (the primary image, or
                // the thumbnail when one is large enough) to RGBA, nothing else.
                let useThumbnail = try file.data.withUnsafeBytes {
                    try HEIFDecoding.plan($0, options: thumbnailOptions).usesThumbnail
                }
                let limit = try Harness.measure {
                    guard OptionalCodecDirect.decodeHEIF(file.data, thumbnail: useThumbnail) != nil else {
                        throw BenchmarkFailure("libheif failed")
                    }
                }
                Harness.report(
                    rowName, ours: ours,
                    baselineName:
                        "libheif direct, \(useThumbnail ? "the thumbnail" : "the full image") to RGBA, no resize",
                    baseline: limit, target: nil, note: "information: the limit with this libheif")
            }
            if file.type == .jpeg2000 {
                // The physical limit: OpenJPEG at the resolution level the codec chose, nothing else.
                let levels = try discardedLevels(file.data, options: thumbnailOptions)
                let limit = try Harness.measure {
                    guard OptionalCodecDirect.decodeJPEG2000(file.data, reduce: levels) != nil else {
                        throw BenchmarkFailure("reduced decode failed")
                    }
                }
                Harness.report(
                    rowName, ours: ours,
                    baselineName: "OpenJPEG direct at the same level (\(levels) discarded), no resize", baseline: limit,
                    target: nil, note: "information: the limit")
                // Whether OpenJPEG's second thread pays, at full resolution and at the reduced level.
                for reduce in [0, levels] {
                    let threads = try DownloadBenchmarks.interleaved([
                        {
                            guard OptionalCodecDirect.decodeJPEG2000(file.data, reduce: reduce, threads: 2) != nil
                            else { throw BenchmarkFailure("2 threads failed") }
                        },
                        {
                            guard OptionalCodecDirect.decodeJPEG2000(file.data, reduce: reduce, threads: 1) != nil
                            else { throw BenchmarkFailure("1 thread failed") }
                        },
                    ])
                    Harness.report(
                        "OpenJPEG direct, \(reduce) levels discarded: 2 threads", ours: threads[0],
                        baselineName: "1 thread",
                        baseline: threads[1], target: nil,
                        note: "information: the codec uses 2 threads from 1 decoded megapixel")
                }
            }
        }
    }

    /// The resolution levels the codec discards for `options`.
    static func discardedLevels(_ data: Data, options: ImageDecodingOptions) throws -> Int {
        try data.withUnsafeBytes { bytes throws -> Int in
            guard let layout = try JPEG2000Layout.scan(bytes) else { throw BenchmarkFailure("not JPEG 2000") }
            let header = try JPEG2000Header.read(
                bytes, layout: layout, options: ImageDecodingOptions(), strict: true, threads: 1)
            let selection = JPEG2000ResolutionSelection(
                x0: header.x0, y0: header.y0, x1: header.x1, y1: header.y1,
                resolutionLevels: header.decompressor.resolutionLevels, options: options)
            return selection.discardedLevels
        }
    }

    static func codec(for type: ImageType) throws -> any ImageCodec {
        guard let codec = CodecCatalogue.shared.codec(for: type) else { throw BenchmarkFailure("no codec for \(type)") }
        return codec
    }

    static func direct(_ type: ImageType, _ data: Data, threads: Int) throws -> (width: Int, height: Int)? {
        type == .jpeg2000
            ? OptionalCodecDirect.decodeJPEG2000(data, threads: threads) : OptionalCodecDirect.decodeHEIF(data)
    }
}
