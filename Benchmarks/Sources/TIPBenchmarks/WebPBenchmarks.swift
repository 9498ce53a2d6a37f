import Foundation
import TIP
import TIPWebP

/// The WebP rows: full decodes through TIPWebP's codec vs libwebp's `WebPDecode` called directly (same
/// output format and threading), with `dwebp` and the Python peers for information, and a decode to fit
/// 400x400 vs libwebp's own scaling and pyvips `thumbnail_buffer`.
enum WebPBenchmarks {
    static func run() throws {
        TIPWebP.register()
        var inputs: [(name: String, data: Data)] = []
        for name in ["sample.webp", "twitterfied.webp"] {
            if let data = Inputs.fixture(name) { inputs.append((name, data)) }
        }
        inputs.append(
            ("generated lossy 1880x1253", try Inputs.generated(.webp, width: 1880, height: 1253, quality: 0.8)))
        inputs.append(
            ("generated lossless 1024x768", try Inputs.generated(.webp, width: 1024, height: 768, quality: 1)))
        let decoder = WebPCodec().decoder

        // Every file on disk for dwebp and the Python peers.
        var paths: [String] = []
        for (index, input) in inputs.enumerated() {
            paths.append(try Inputs.temporaryFile(input.data, name: "webp-\(index).webp"))
        }
        let thumbnailIndex = 0
        let peers = Peers.run(
            arguments: paths.flatMap { ["--webp", $0] } + ["--webp-thumbnail", paths[thumbnailIndex]])
        let dwebp = DWebP.find()

        for (index, input) in inputs.enumerated() {
            guard let (width, height) = WebPDirect.dimensions(input.data) else {
                throw BenchmarkFailure("libwebp does not read \(input.name)")
            }
            let name = "full WebP decode (\(input.name), \(width)x\(height), \(input.data.count / 1024) KiB)"
            let samples = try DownloadBenchmarks.interleaved([
                { _ = try decoder.decode(input.data, options: ImageDecodingOptions()) },
                {
                    guard WebPDirect.decode(input.data) else {
                        throw BenchmarkFailure("WebPDecode failed on \(input.name)")
                    }
                },
                {
                    guard WebPDirect.decodeRGBA(input.data) else {
                        throw BenchmarkFailure("WebPDecodeRGBA failed on \(input.name)")
                    }
                },
                {
                    guard WebPDirect.decodeIntoInitializedBitmap(input.data) else {
                        throw BenchmarkFailure("WebPDecode into a Bitmap failed on \(input.name)")
                    }
                },
            ])
            let (ours, direct, simple, initialized) = (samples[0], samples[1], samples[2], samples[3])
            Harness.report(
                name, ours: ours, baselineName: "WebPDecode direct (RGBA, use_threads, 64-byte-aligned buffer)",
                baseline: direct, target: 1.05)
            Harness.report(
                name, ours: ours,
                baselineName:
                    "WebPDecode direct into Bitmap(width:height:format:) (zero-filled + alpha-filled, as the codec)",
                baseline: initialized, target: nil,
                note: "diagnostic: the codec's bitmap initialisation moved into the baseline")
            Harness.report(
                name, ours: ours, baselineName: "WebPDecodeRGBA direct (no threads, libwebp's buffer)",
                baseline: simple, target: nil, note: "information")
            if let dwebp, let times = try dwebp.decodeTimes(paths[index]) {
                Harness.report(
                    name, ours: ours, baselineName: "dwebp -mt (its own decode timer, 1 ms resolution)",
                    baseline: times, target: nil, note: "information: peer")
            }
            let file = (paths[index] as NSString).lastPathComponent
            if let vips = peers["pyvips_webp_load:\(file)"] {
                Harness.report(
                    name, ours: ours, baselineName: "pyvips new_from_buffer + write_to_memory", baseline: vips,
                    target: nil, note: "information: peer")
            }
            if let pillow = peers["pillow_webp_load:\(file)"] {
                Harness.report(
                    name, ours: ours, baselineName: "Pillow open + load", baseline: pillow, target: nil,
                    note: "information: peer")
            }
        }

        // Decode to fit 400x400: libwebp scales while decoding.
        let input = inputs[thumbnailIndex]
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)
        let thumb = try decoder.decode(input.data, options: options).image
        let samples = try DownloadBenchmarks.interleaved([
            { _ = try decoder.decode(input.data, options: options) },
            {
                guard WebPDirect.decode(input.data, width: thumb.width, height: thumb.height) else {
                    throw BenchmarkFailure("scaled WebPDecode failed")
                }
            },
        ])
        let name = "WebP to \(thumb.width)x\(thumb.height) (\(input.name))"
        Harness.report(
            name, ours: samples[0], baselineName: "WebPDecode direct, scaled by libwebp", baseline: samples[1],
            target: 1.05)
        let file = (paths[thumbnailIndex] as NSString).lastPathComponent
        if let vips = peers["pyvips_webp_thumbnail:\(file)"] {
            Harness.report(
                name, ours: samples[0], baselineName: "pyvips thumbnail_buffer", baseline: vips, target: nil,
                note: "information: peer")
        }
        if let pillow = peers["pillow_webp_thumbnail:\(file)"] {
            Harness.report(
                name, ours: samples[0], baselineName: "Pillow thumbnail", baseline: pillow, target: nil,
                note: "information: peer")
        }
    }
}

/// The `dwebp` command-line tool (apt package `webp`; `Benchmarks/run` installs it when missing).
struct DWebP {
    let executable: String

    /// nil (with a note) when dwebp is not installed.
    static func find() -> DWebP? {
        guard
            let path = ["/usr/bin/dwebp", "/usr/local/bin/dwebp"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            print("note: dwebp not found; its rows are skipped (Benchmarks/run installs it)")
            return nil
        }
        return DWebP(executable: path)
    }

    /// One warm-up and `Harness.iterations` runs of `dwebp -mt -v file -pam -o /dev/null`, each timed by
    /// dwebp itself ("Time to decode picture"), so that process start-up and output are left out.
    func decodeTimes(_ path: String) throws -> Samples? {
        var values: [Double] = []
        for run in 0...Harness.iterations {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["-mt", "-v", path, "-pam", "-o", "/dev/null"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                let line = text.split(separator: "\n").first(where: { $0.contains("Time to decode picture") }),
                let seconds = Double(
                    line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces).dropLast() ?? "")
            else {
                print("note: dwebp failed or printed no decode time on \(path); its row is skipped")
                return nil
            }
            if run > 0 { values.append(seconds * 1000) }
        }
        return Samples(values)
    }
}
