import Foundation
import TIP

/// `TIPBenchmarks --profile FILE WxH [REPEAT]`: decodes FILE to fit WxH REPEAT times (default 10) and
/// nothing else, for instruction counts under `valgrind --tool=callgrind` (the benchmark rows are too long
/// for it, and `tip-sample`'s dispatch main loop trips valgrind 3.19). Compare two builds' counts; isolate a
/// stage with `--toggle-collect`, e.g. `--toggle-collect='*ResamplerO8resample*'`.
enum ProfileDriver {
    static let flag = "--profile"

    static func run(arguments: [String]) -> Int32 {
        guard let index = arguments.firstIndex(of: flag), index + 2 < arguments.count,
            let data = FileManager.default.contents(atPath: arguments[index + 1])
        else {
            print("usage: TIPBenchmarks --profile FILE WxH [REPEAT]")
            return 2
        }
        let size = arguments[index + 2].split(separator: "x").compactMap { Double($0) }
        let repeats = index + 3 < arguments.count ? Int(arguments[index + 3]) ?? 10 : 10
        guard size.count == 2 else { return 2 }
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: size[0], height: size[1]), targetContentMode: .scaleAspectFit)
        var last = ""
        for _ in 0..<repeats {
            guard let (image, _) = try? CodecCatalogue.shared.decodeImage(data, options: options) else {
                print("cannot decode \(arguments[index + 1])")
                return 1
            }
            last = "\(image.image.width)x\(image.image.height)"
        }
        print("decoded \(repeats) times to \(last)")
        return 0
    }
}
