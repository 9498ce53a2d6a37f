import ArgumentParser
import Foundation
import TIP
import TIPHEIF
import TIPJPEG2000

/// `tip-sample decode FILE`: decodes a file through the codec catalogue straight to a target size
/// (JPEG, PNG and APNG, GIF, TIFF, BMP, TGA, ICO, and with the optional codecs registered, JPEG 2000,
/// HEIC and AVIF).
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image file through the codec catalogue, straight to a target size.",
        discussion: """
            Exit status: 0 for a whole image, 1 when the file cannot be decoded or the output not written, 2 when \
            the file cannot be read, 64 for bad arguments, 3 when the file is cut short after its first pixels (what \
            was decoded is printed and written, with a warning).
            """
    )

    @Argument(help: "The image file to decode.")
    var file: String

    @Option(help: "Target dimensions in pixels, WxH (default: the image's own size).")
    var size: SizeArgument?

    @Option(
        help:
            """
            How the image fits the target size: \
            \(ContentModeArgument.allCases.map(\.rawValue).joined(separator: ", ")).
            """
    )
    var mode: ContentModeArgument = .scaleAspectFit

    @Option(
        name: .customLong("process"),
        help: ArgumentHelp(
            """
            Apply a processor after decoding (repeatable, applied in order): \(ProcessorArgument.names). crop and \
            fit use --size.
            """,
            valueName: "name"))
    var processors: [ProcessorArgument] = []

    @Option(
        help:
            """
            Write the result (the first frame of an animation) to this file; its extension picks the type (.png, \
            .jpg, .gif, .webp, .tif, .bmp, .tga, .jp2, .heic, .avif; PNG without one).
            """
    )
    var out: String?

    func validate() throws {
        if let out {
            let pathExtension = (out as NSString).pathExtension
            if !pathExtension.isEmpty, ImageType(fileExtension: pathExtension) == nil {
                throw ValidationError("--out: no image type has the extension .\(pathExtension)")
            }
        }
    }

    @Option(help: "Decode this many times and print the median decode time.")
    var `repeat`: Int?

    func run() throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            var err = StandardError()
            print("error: cannot read \(file): \(error.localizedDescription)", to: &err)
            throw ExitCode(2)
        }
        let options = ImageDecodingOptions(targetDimensions: size?.dimensions ?? .zero, targetContentMode: mode.mode)
        let catalogue = CodecCatalogue.shared
        TIPJPEG2000.register(on: catalogue)
        TIPHEIF.register(on: catalogue)
        let context = ImageProcessingContext(
            targetDimensions: options.targetDimensions, targetContentMode: options.targetContentMode)
        let processors = self.processors.map(\.processor)
        let result: (container: ImageContainer, type: ImageType)
        do {
            let decoded = try catalogue.decodeImage(data, options: options)
            result = (try decoded.container.processed(by: processors, context: context), decoded.type)
        } catch let error as ImageDecodingError {
            var err = StandardError()
            print("error: \(error.description)", to: &err)
            throw ExitCode(1)
        } catch {
            var err = StandardError()
            print("error: \(error)", to: &err)
            throw ExitCode(1)
        }
        // Original dimensions come from a header-only pass of an incremental context.
        let original =
            Self.originalDimensions(of: data, type: result.type, catalogue: catalogue) ?? result.container.dimensions
        print("type: \(result.type.rawValue)")
        print("original: \(Int(original.width))x\(Int(original.height))")
        print("output: \(result.container.image.width)x\(result.container.image.height)")
        print("frames: \(result.container.frameCount)")
        if !processors.isEmpty {
            print("processors: \(ImageProcessors.identifier(of: processors))")
        }
        if result.container.isPartial {
            print("partial: yes (the data is incomplete)")
        }
        if let count = `repeat`, count > 0 {
            var times: [Double] = [], processing: [Double] = []
            for _ in 0..<count {
                let start = DispatchTime.now().uptimeNanoseconds
                if let decoded = try? catalogue.decodeImage(data, options: options, imageType: result.type) {
                    let decodedAt = DispatchTime.now().uptimeNanoseconds
                    _ = try? decoded.container.processed(by: processors, context: context)
                    processing.append(Double(DispatchTime.now().uptimeNanoseconds - decodedAt) / 1e6)
                }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            print("median: \(String(format: "%.1f", Self.median(times))) ms (\(count) runs)")
            if !processors.isEmpty {
                print("median processing: \(String(format: "%.1f", Self.median(processing))) ms")
            }
        }
        if let out {
            let type = ImageType(fileExtension: (out as NSString).pathExtension) ?? .png
            do {
                try ImageContainer(image: result.container.image).write(
                    to: URL(fileURLWithPath: out), type: type, quality: 0.85)
            } catch {
                var err = StandardError()
                print("error: \(error.description)", to: &err)
                throw ExitCode(1)
            }
        }
        if result.container.isPartial {
            // Written all the same (djpeg, too, writes what it decoded and exits 2 on a warning), but the status
            // says the image is not whole.
            var err = StandardError()
            print(
                "warning: \(file) is incomplete: only part of the image was decoded"
                    + (out.map { "; \($0) holds that part" } ?? ""), to: &err)
            throw ExitCode(3)
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func originalDimensions(of data: Data, type: ImageType, catalogue: CodecCatalogue) -> CGSize? {
        guard let codec = catalogue.codec(for: type) else { return nil }
        let context = codec.decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
        // Only until the header is read: streaming contexts decode rows and frames as bytes arrive.
        var offset = 0
        while offset < data.count && context.dimensions.width <= 0 {
            let end = min(offset + 16 * 1024, data.count)
            guard (try? context.append(data.subdata(in: offset..<end))) != nil else { return nil }
            offset = end
        }
        return context.dimensions.width > 0 ? context.dimensions : nil
    }
}
