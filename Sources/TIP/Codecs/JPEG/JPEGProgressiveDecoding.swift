import CJPEGIncremental

extension JPEGDecoder {
    /// Decodes a complete progressive JPEG through libjpeg (`tip_jpeg_decode_progressive`) instead of
    /// TurboJPEG, byte for byte the same image, for what TurboJPEG's API cannot do: the scans (the AC scans
    /// most of the file, and most of libjpeg's time in its refinement scans) are decoded by TIP's own decoder,
    /// libjpeg reading only the header and producing the pixels; the whole-image coefficient arrays (about 1.5 x
    /// width x height x 2 bytes) come from warm mappings of ``BitmapMappingPool`` instead of fresh `malloc`
    /// memory that page-faulted on every decode and stayed in glibc's per-thread heaps; and at a scale where
    /// the luma inverse DCT reads only DC (1/8, usual for thumbnails of large photos) the luma AC scans are not
    /// decoded at all. Returns false (the caller then decodes with TurboJPEG) for anything unusual: a warning,
    /// an error, other dimensions.
    static func decodeProgressive(
        _ bytes: UnsafeRawBufferPointer, scale: JPEGScaleSelection, outputSpace: Int32,
        destination: UnsafeMutableRawPointer, pitch: Int
    ) -> Bool {
        decodeProgressive(
            bytes, numerator: scale.numerator, denominator: scale.denominator, width: scale.scaledWidth,
            height: scale.scaledHeight, outputSpace: outputSpace, destination: destination, pitch: pitch) != nil
    }

    /// How ``decodeProgressive(_:scale:outputSpace:destination:pitch:)`` decoded a file.
    struct ProgressivePath: OptionSet, Equatable {
        let rawValue: Int32
        /// The AC scans of components that read only DC at the scale were not decoded.
        static let dcOnly = ProgressivePath(rawValue: Int32(TIP_JPEG_PROGRESSIVE_DC_ONLY))
        /// TIP's own decoder read the scans.
        static let ownAC = ProgressivePath(rawValue: Int32(TIP_JPEG_PROGRESSIVE_OWN_AC))
    }

    /// ``decodeProgressive(_:scale:outputSpace:destination:pitch:)`` at `numerator / denominator` to `width` x
    /// `height`: nil when not decoded, else how (tests check it).
    static func decodeProgressive(
        _ bytes: UnsafeRawBufferPointer, numerator: Int, denominator: Int, width: Int, height: Int,
        outputSpace: Int32, destination: UnsafeMutableRawPointer, pitch: Int
    ) -> ProgressivePath? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var allocator = tip_jpeg_large_allocator(allocate: allocateCoefficients, release: releaseCoefficients)
        var path: Int32 = 0
        let status = tip_jpeg_decode_progressive(
            base, bytes.count, Int32(numerator), Int32(denominator), outputSpace,
            destination.assumingMemoryBound(to: UInt8.self), pitch,
            Int32(width), Int32(height), &allocator, &path)
        return status == 0 ? ProgressivePath(rawValue: path) : nil
    }

    /// Compares TIP's progressive AC decoder with libjpeg on `bytes` (`tip_jpeg_progressive_ac_check`): 0
    /// identical coefficients, -1 different, 1 libjpeg warns or fails, 2 TIP's decoder declines.
    static func checkProgressiveAC(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 1 }
        var allocator = tip_jpeg_large_allocator(allocate: allocateCoefficients, release: releaseCoefficients)
        return tip_jpeg_progressive_ac_check(base, bytes.count, &allocator)
    }
}

/// Coefficient memory for ``JPEGDecoder/decodeProgressive(_:scale:outputSpace:destination:pitch:)``: any
/// kept mapping at least as large (only the pages the decode touches count in memory, and they are warm), else
/// a new one, zero already, with its pages provided at once when the decoder writes it `whole`.
private func allocateCoefficients(
    _ bytes: Int, _ length: UnsafeMutablePointer<Int>?, _ whole: Int32, _ zeroed: UnsafeMutablePointer<Int32>?
) -> UnsafeMutableRawPointer? {
    guard let mapping = BitmapMappingPool.shared.take(bytes, acceptingAnyLarger: true, populated: whole != 0)
    else { return nil }
    length?.pointee = mapping.length
    zeroed?.pointee = mapping.isNew ? 1 : 0
    return mapping.pointer
}

private func releaseCoefficients(_ pointer: UnsafeMutableRawPointer?, _ length: Int) {
    guard let pointer else { return }
    BitmapMappingPool.shared.give(pointer, length: length)
}
