import CTIFFDirect
import Foundation

/// libtiff called directly, with nothing around it: the baseline for TIFF decoding. The bytes are read
/// through client procs over memory (as the codec does), and `TIFFReadRGBAImageOriented` fills a plain
/// malloc'd raster, top-left first.
enum TIFFDirect {
    /// The bytes being read and the read position, behind the client handle.
    private struct Source {
        var base: UnsafePointer<UInt8>
        var size: UInt64
        var position: UInt64
    }

    /// Decodes the first image of `data`; returns its dimensions, or nil when libtiff fails.
    @discardableResult
    static func decode(_ data: Data) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { raw -> (Int, Int)? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            let source = UnsafeMutablePointer<Source>.allocate(capacity: 1)
            source.initialize(to: Source(base: base, size: UInt64(raw.count), position: 0))
            defer { source.deallocate() }
            // Warnings and errors would print: this baseline runs on valid files only.
            guard
                let tif = TIFFClientOpen("memory", "rm", thandle_t(source), read, write, seek, close, size, map, unmap)
            else { return nil }
            defer { TIFFClose(tif) }
            let width = tip_direct_tiff_width(tif), height = tip_direct_tiff_height(tif)
            guard width > 0, height > 0 else { return nil }
            let raster = UnsafeMutablePointer<UInt32>.allocate(capacity: Int(width) * Int(height))
            defer { raster.deallocate() }
            guard TIFFReadRGBAImageOriented(tif, width, height, raster, Int32(ORIENTATION_TOPLEFT), 1) == 1 else {
                return nil
            }
            return (Int(width), Int(height))
        }
    }

    private static let read: TIFFReadWriteProc = { handle, buffer, count in
        guard let handle, let buffer, count > 0 else { return 0 }
        let source = handle.assumingMemoryBound(to: Source.self)
        guard source.pointee.position < source.pointee.size else { return 0 }
        let length = min(UInt64(count), source.pointee.size - source.pointee.position)
        buffer.copyMemory(from: source.pointee.base + Int(source.pointee.position), byteCount: Int(length))
        source.pointee.position += length
        return tmsize_t(length)
    }
    private static let write: TIFFReadWriteProc = { _, _, _ in 0 }
    private static let seek: TIFFSeekProc = { handle, offset, whence in
        guard let handle else { return UInt64.max }
        let source = handle.assumingMemoryBound(to: Source.self)
        switch whence {
        case SEEK_CUR: source.pointee.position += offset
        case SEEK_END: source.pointee.position = source.pointee.size + offset
        default: source.pointee.position = offset
        }
        return source.pointee.position
    }
    private static let close: TIFFCloseProc = { _ in 0 }
    private static let size: TIFFSizeProc = { handle in handle?.assumingMemoryBound(to: Source.self).pointee.size ?? 0 }
    private static let map: TIFFMapFileProc = { handle, base, size in
        guard let handle, let base, let size else { return 0 }
        let source = handle.assumingMemoryBound(to: Source.self)
        base.pointee = UnsafeMutableRawPointer(mutating: source.pointee.base)
        size.pointee = source.pointee.size
        return 1
    }
    private static let unmap: TIFFUnmapFileProc = { _, _, _ in }
}
