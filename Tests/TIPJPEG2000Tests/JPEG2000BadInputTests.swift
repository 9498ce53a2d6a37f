import Foundation
import Testing

@testable import TIP
@testable import TIPJPEG2000

@Suite("JPEG 2000 bad input")
struct JPEG2000BadInputTests {
    let decoder = JPEG2000Codec().decoder

    func decodeError(_ data: Data, options: ImageDecodingOptions = ImageDecodingOptions()) -> ImageDecodingError? {
        do {
            _ = try decoder.decode(data, options: options)
            return nil
        } catch {
            return error
        }
    }

    func isCorrupt(_ error: ImageDecodingError?) -> Bool {
        if case .corruptData = error { return true }
        return false
    }

    @Test func emptyAndWrongType() throws {
        #expect(decodeError(Data()) == .emptyData)
        let png = try JPEG2000TestFiles.data("photo.png")
        #expect(decodeError(png) == .unrecognizedFormat)
        let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        #expect(throws: ImageDecodingError.emptyData) { try context.finalize() }
        #expect(throws: ImageDecodingError.unrecognizedFormat) { try context.append(png) }
    }

    @Test("Every prefix is partial or a typed error", arguments: ["photo-lossless.jp2", "photo.j2k", "alpha.jp2"])
    func everyPrefix(file: String) throws {
        let data = try JPEG2000TestFiles.data(file)
        var partials = 0
        for length in stride(from: 1, to: data.count, by: 29) {
            do {
                let image = try decoder.decode(data.prefix(length), options: ImageDecodingOptions())
                #expect(image.isPartial, "length \(length)")
                #expect(OpenJPEGVersion.allowsPartialDecoding)
                partials += 1
            } catch {
                #expect(error == .truncatedData || isCorrupt(error), "length \(length): \(error)")
            }
        }
        // Partial images only where OpenJPEG's lenient mode is safe (2.5.3+); Debian 12's 2.5.0 says truncated.
        #expect((partials > 0) == OpenJPEGVersion.allowsPartialDecoding, "\(partials) partial images")
    }

    @Test("A header claiming more pixels than allowed is refused before decoding")
    func dimensionsTooLarge() throws {
        let data = try JPEG2000TestFiles.data("large.jp2")
        let options = ImageDecodingOptions(maximumPixelCount: 100_000)
        #expect(
            decodeError(data, options: options)
                == .dimensionsTooLarge(width: 640, height: 480, maximumPixelCount: 100_000))
        let context = decoder.makeContext(expectedLength: nil, options: options)
        #expect(throws: ImageDecodingError.dimensionsTooLarge(width: 640, height: 480, maximumPixelCount: 100_000)) {
            _ = try context.append(data)
        }
    }

    @Test("A codestream whose SIZ claims a huge image is refused from the header")
    func hostileSIZ() throws {
        var data = try JPEG2000TestFiles.data("photo.j2k")
        // SIZ: FF4F FF51 Lsiz(2) Rsiz(2) Xsiz(4) Ysiz(4) at offsets 8 and 12.
        for (offset, value) in [(8, UInt32(60_000)), (12, UInt32(60_000))] {
            for i in 0..<4 { data[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
        }
        let error = decodeError(data)
        #expect(
            error
                == .dimensionsTooLarge(
                    width: 60_000, height: 60_000, maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)
                || isCorrupt(error), "\(String(describing: error))")
    }

    @Test("Damaged bytes give an image or a typed error, never a crash")
    func corruptBytes() throws {
        var rng = SeededGenerator(seed: 7)
        for file in ["photo-lossless.jp2", "photo.j2k", "alpha.jp2", "photo-lossy.jp2"] {
            let source = try JPEG2000TestFiles.data(file)
            for _ in 0..<20 {
                var damaged = source
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    let index = Int.random(in: 12..<damaged.count, using: &rng)
                    damaged[index] = UInt8.random(in: 0...255, using: &rng)
                }
                _ = try? decoder.decode(
                    damaged,
                    options: ImageDecodingOptions(
                        targetDimensions: CGSize(width: 20, height: 20), targetContentMode: .scaleAspectFit))
                let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
                if (try? context.append(damaged)) != nil {
                    _ = try? context.finalize()
                    _ = try? context.render(mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
                }
            }
        }
    }
}
