import CJPEGIncremental
import CTurboJPEG
import Foundation
import Testing

@testable import TIP

/// Complete progressive JPEGs decode through libjpeg with pooled coefficient memory, their AC scans through TIP's
/// own decoder, leaving out the AC scans of components whose inverse DCT reads only DC at the scale: the pixels
/// must be TurboJPEG's, byte for byte.
@Suite("JPEG: progressive one-shot decoding")
struct JPEGProgressiveDecodingTests {
    /// Progressive test files: 4:2:0, 4:4:4, gray (our encoder), 4:2:2 (TurboJPEG directly), odd sizes.
    static func files() throws -> [(name: String, data: Data)] {
        var files: [(String, Data)] = []
        for (width, height) in [(203, 151), (64, 48), (9, 7), (130, 260)] {
            files.append(
                (
                    "420 \(width)x\(height)",
                    try JPEGTestSupport.jpeg(width: width, height: height, progressive: true, quality: quality420).data
                ))
        }
        files.append(("444", try JPEGTestSupport.jpeg(width: 171, height: 97, progressive: true, quality: 0.97).data))
        // More than 128 block rows: at 1/8 the striped arrays of the components that read DC alone have three
        // stripes.
        files.append(
            ("420 tall", try JPEGTestSupport.jpeg(width: 40, height: 1100, progressive: true, quality: quality420).data)
        )
        files.append(
            ("444 tall", try JPEGTestSupport.jpeg(width: 24, height: 1030, progressive: true, quality: 0.97).data))
        files.append(("gray", try JPEGTestSupport.jpeg(width: 150, height: 101, progressive: true, gray: true).data))
        files.append(("422", try #require(Self.encode422(TestImages.photo(width: 187, height: 133)))))
        for name in ["carnival.pjpg", "twitterfied.pjpg", "pink_outfit.jpg"] {
            if let data = Fixtures.data(name) { files.append((name, data)) }
        }
        return files
    }

    /// A quality our encoder subsamples the chroma at (4:2:0 below libjpeg's 90; its default, 0.83, is 95).
    static let quality420: Float = 0.6

    static func encode422(_ bitmap: Bitmap) -> Data? {
        guard let handle = tjInitCompress() else { return nil }
        defer { tjDestroy(handle) }
        return bitmap.withUnsafeBytes { src -> Data? in
            var buffer: UnsafeMutablePointer<UInt8>? = nil
            var size: UInt = 0
            guard
                tjCompress2(
                    handle, src.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(bitmap.width),
                    Int32(bitmap.bytesPerRow),
                    Int32(bitmap.height), Int32(TJPF_RGBX.rawValue), &buffer, &size, Int32(TJSAMP_422.rawValue), 85,
                    TJFLAG_PROGRESSIVE) == 0, let buffer
            else { return nil }
            defer { tjFree(buffer) }
            return Data(bytes: buffer, count: Int(size))
        }
    }

    @Test("Every scale gives TurboJPEG's pixels, through our AC decoder; at 1/8 the luma AC scans are left out")
    func matchesTurboJPEG() throws {
        for (name, data) in try Self.files() {
            var w: Int32 = 0, h: Int32 = 0
            let gray = name == "gray"
            data.withUnsafeBytes { raw in
                let handle = tjInitDecompress()
                var sub: Int32 = 0, cs: Int32 = 0
                _ = tjDecompressHeader3(
                    handle, raw.bindMemory(to: UInt8.self).baseAddress, UInt(raw.count), &w, &h, &sub, &cs)
                tjDestroy(handle)
            }
            for factor in JPEGScaleSelection.factors {
                let width = JPEGScaleSelection.scaled(Int(w), factor.num, factor.denom)
                let height = JPEGScaleSelection.scaled(Int(h), factor.num, factor.denom)
                let reference = try #require(
                    JPEGTestSupport.turboJPEGDecode(data, scaledWidth: Int32(width), scaledHeight: Int32(height)))
                var ours = try #require(Bitmap(width: width, height: height, format: gray ? .gray8 : .rgbx8))
                let pitch = ours.bytesPerRow
                let space = Int32(gray ? TIP_JPEG_OUT_GRAY : TIP_JPEG_OUT_RGBX)
                let path = ours.withUnsafeMutableBytes { dst in
                    data.withUnsafeBytes { src in
                        JPEGDecoder.decodeProgressive(
                            src, numerator: factor.num, denominator: factor.denom, width: width, height: height,
                            outputSpace: space, destination: dst.baseAddress!, pitch: pitch)
                    }
                }
                #expect(
                    path?.contains(.dcOnly) == (factor.num * 8 == factor.denom),
                    "\(name) at \(factor.num)/\(factor.denom): AC scans left out")
                #expect(path?.contains(.ownAC) == true, "\(name) at \(factor.num)/\(factor.denom): our AC decoder")
                #expect(ours == reference, "\(name) at \(factor.num)/\(factor.denom)")
            }
        }
    }

    @Test("Coefficient memory: our decoder clears the blocks it fills, whatever the memory it is given holds")
    func coefficientMemory() throws {
        let data = try JPEGTestSupport.jpeg(width: 203, height: 151, progressive: true).data
        // Dirty memory said to be dirty and zero memory said to be zero: our decoder clears each block before its
        // first AC coefficient and the blocks without one at the end (libjpeg's zeroing pass is skipped for the
        // arrays it fills). Its own scratch (masks of the coefficients set, DC arrays) trusts the flag: dirty
        // memory said to be zero is caught only by a decoder that does.
        let dirty = tip_jpeg_large_allocator(
            allocate: { bytes, length, _, zeroed in
                zeroed?.pointee = 0
                return Self.filled(bytes, length)
            }, release: { pointer, _ in free(pointer) })
        let zero = tip_jpeg_large_allocator(
            allocate: { bytes, length, _, zeroed in
                zeroed?.pointee = 1
                length?.pointee = bytes
                return calloc(bytes, 1)
            }, release: { pointer, _ in free(pointer) })
        let lying = tip_jpeg_large_allocator(
            allocate: { bytes, length, whole, zeroed in
                zeroed?.pointee = whole
                return Self.filled(bytes, length)
            }, release: { pointer, _ in free(pointer) })
        for denominator in [1, 2, 8] {
            let width = JPEGScaleSelection.scaled(203, 1, denominator)
            let height = JPEGScaleSelection.scaled(151, 1, denominator)
            let reference = try #require(
                JPEGTestSupport.turboJPEGDecode(data, scaledWidth: Int32(width), scaledHeight: Int32(height)))
            for (name, allocator) in [("dirty", dirty), ("zero", zero)] {
                let (status, path, bitmap) = try Self.decode(
                    data, denominator: denominator, width: width, height: height, allocator: allocator)
                #expect(status == 0 && bitmap == reference, "\(name) at 1/\(denominator)")
                #expect(path & Int32(TIP_JPEG_PROGRESSIVE_OWN_AC) != 0, "\(name) at 1/\(denominator): our decoder")
                #expect(
                    (path & Int32(TIP_JPEG_PROGRESSIVE_DC_ONLY) != 0) == (denominator == 8),
                    "\(name) at 1/\(denominator)")
            }
            if denominator == 1 {
                let (status, _, bitmap) = try Self.decode(
                    data, denominator: denominator, width: width, height: height, allocator: lying)
                #expect(status != 0 || bitmap != reference, "lying at 1/1")
            }
        }
        // A progression our decoder declines only at its end (every AC coefficient left at half precision), after
        // writing its arrays: libjpeg then decodes the file into new ones, which it must zero when they are dirty.
        let incomplete = try #require(JPEGProgressiveACTests.incompleteProgression(data))
        let reference = try #require(JPEGTestSupport.turboJPEGDecode(incomplete, scaledWidth: 203, scaledHeight: 151))
        for (name, allocator) in [("dirty", dirty), ("zero", zero)] {
            let (status, path, bitmap) = try Self.decode(
                incomplete, denominator: 1, width: 203, height: 151, allocator: allocator)
            #expect(status == 0 && bitmap == reference, "declined, \(name)")
            #expect(path & Int32(TIP_JPEG_PROGRESSIVE_OWN_AC) == 0, "declined, \(name): libjpeg's decode")
        }
    }

    /// The largest coefficient request (`whole` set) of ``stripedArrays()``'s allocator.
    private static let largestRequest = Locked(0)

    @Test("At 1/8 a component whose inverse DCT reads DC alone costs 2 bytes a block, not 128")
    func stripedArrays() throws {
        // 4:4:4 at 1/8: every component reads DC alone. 4:2:0: only the luma does (the chroma's 2x2 inverse
        // DCT reads AC too). 512x512 is 4,096 blocks a component, 512 KB of coefficients whole.
        for (quality, dcComponents) in [(Float(0.97), 3), (Self.quality420, 1)] {
            let data = try JPEGTestSupport.jpeg(width: 512, height: 512, progressive: true, quality: quality).data
            let reference = try #require(JPEGTestSupport.turboJPEGDecode(data, scaledWidth: 64, scaledHeight: 64))
            let allocator = tip_jpeg_large_allocator(
                allocate: { bytes, length, whole, zeroed in
                    if whole != 0 { JPEGProgressiveDecodingTests.largestRequest.withLock { $0 = max($0, bytes) } }
                    zeroed?.pointee = 0
                    return JPEGProgressiveDecodingTests.filled(bytes, length)
                }, release: { pointer, _ in free(pointer) })
            Self.largestRequest.withLock { $0 = 0 }
            let (status, path, bitmap) = try Self.decode(
                data, denominator: 8, width: 64, height: 64, allocator: allocator)
            #expect(status == 0 && path & Int32(TIP_JPEG_PROGRESSIVE_DC_ONLY) != 0 && bitmap == reference)
            // Whole arrays: 3 x 512 KB (4:4:4) or 512 + 2 x 128 KB (4:2:0). Striped, a DC-only component takes
            // one stripe of 65 blocks (8,320 bytes) instead of 512 KB.
            let whole = dcComponents == 3 ? 3 * 524_288 : 524_288 + 2 * 131_072
            let striped = whole - dcComponents * (524_288 - 8_320)
            #expect(Self.largestRequest.withLock { $0 } == striped, "\(dcComponents) striped")
        }
    }

    /// `data` through `tip_jpeg_decode_progressive` at 1/`denominator` into RGBX, coefficients from `allocator`.
    private static func decode(
        _ data: Data, denominator: Int, width: Int, height: Int, allocator: tip_jpeg_large_allocator
    ) throws -> (status: Int32, path: Int32, bitmap: Bitmap) {
        var allocator = allocator
        var bitmap = try #require(Bitmap(width: width, height: height, format: .rgbx8))
        let pitch = bitmap.bytesPerRow
        var path: Int32 = 0
        let status = bitmap.withUnsafeMutableBytes { dst in
            data.withUnsafeBytes { src in
                tip_jpeg_decode_progressive(
                    src.bindMemory(to: UInt8.self).baseAddress, src.count, 1, Int32(denominator),
                    Int32(TIP_JPEG_OUT_RGBX), dst.bindMemory(to: UInt8.self).baseAddress, pitch,
                    Int32(width), Int32(height), &allocator, &path)
            }
        }
        return (status, path, bitmap)
    }

    /// `bytes` bytes of 0x5A from `malloc` (their length stored in `length`).
    private static func filled(_ bytes: Int, _ length: UnsafeMutablePointer<Int>?) -> UnsafeMutableRawPointer? {
        length?.pointee = bytes
        guard let pointer = malloc(bytes) else { return nil }
        pointer.initializeMemory(as: UInt8.self, repeating: 0x5A, count: bytes)
        return pointer
    }

    @Test("Baseline files and other dimensions are left to TurboJPEG")
    func declines() throws {
        let baseline = try JPEGTestSupport.jpeg(width: 64, height: 48).data
        let progressive = try JPEGTestSupport.jpeg(width: 64, height: 48, progressive: true).data
        var bitmap = try #require(Bitmap(width: 64, height: 48, format: .rgbx8))
        let pitch = bitmap.bytesPerRow
        for (data, width, handled) in [(baseline, 64, false), (progressive, 63, false), (progressive, 64, true)] {
            let result = bitmap.withUnsafeMutableBytes { dst in
                data.withUnsafeBytes { src in
                    JPEGDecoder.decodeProgressive(
                        src, numerator: 1, denominator: 1, width: width, height: 48,
                        outputSpace: Int32(TIP_JPEG_OUT_RGBX), destination: dst.baseAddress!, pitch: pitch)
                }
            }
            #expect((result != nil) == handled)
        }
    }

    @Test("The decoder's own output for a progressive file at a thumbnail size equals the TurboJPEG route")
    func throughTheDecoder() throws {
        let data = try JPEGTestSupport.jpeg(width: 800, height: 600, progressive: true).data
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 100, height: 100), targetContentMode: .scaleAspectFit)
        let image = try JPEGCodec().decoder.decode(data, options: options).image
        // 1/8 gives exactly 100x75: no resampling, so the bytes are the scaled decode's.
        let reference = try #require(JPEGTestSupport.turboJPEGDecode(data, scaledWidth: 100, scaledHeight: 75))
        #expect(image == reference)
    }
}
