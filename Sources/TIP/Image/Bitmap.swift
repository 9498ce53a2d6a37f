import Foundation

/// A decoded image: a rectangle of 8-bit pixels in one ``PixelFormat``, with copy-on-write storage.
///
/// ```swift
/// var bitmap = Bitmap(width: 2, height: 1, format: .rgba8Premultiplied)!
/// bitmap.setPixel(x: 0, y: 0, SIMD4(255, 0, 0, 255))
/// ```
///
/// Rows start on 64-byte boundaries (`bytesPerRow` is a multiple of 64) and the storage itself is
/// 64-byte aligned, so SIMD code can run over whole rows. Any EXIF orientation has already been
/// applied: pixel (0, 0) is the top-left corner as displayed. The scale is always 1 (pixels).
/// Padding bytes at the end of each row are zero.
public struct Bitmap: Sendable {
    /// Width in pixels (> 0).
    public let width: Int
    /// Height in pixels (> 0).
    public let height: Int
    /// Bytes from the start of one row to the start of the next: a multiple of 64.
    public let bytesPerRow: Int
    /// How each pixel is laid out.
    public let format: PixelFormat

    private var storage: BitmapStorage

    /// Alignment of the storage and of every row, in bytes.
    public static let rowAlignment = 64

    /// The bytes a row of `width` pixels of `format` takes once aligned, or nil when that overflows.
    public static func alignedBytesPerRow(width: Int, format: PixelFormat) -> Int? {
        guard width > 0 else { return nil }
        let (raw, overflow) = width.multipliedReportingOverflow(by: format.bytesPerPixel)
        guard !overflow, raw <= Int.max - rowAlignment else { return nil }
        return (raw + rowAlignment - 1) / rowAlignment * rowAlignment
    }

    /// The bytes a `width` x `height` bitmap of `format` takes, or nil when a dimension is not positive
    /// or the size overflows.
    public static func byteCount(width: Int, height: Int, format: PixelFormat) -> Int? {
        guard height > 0, let row = alignedBytesPerRow(width: width, format: format) else { return nil }
        let (total, overflow) = row.multipliedReportingOverflow(by: height)
        return overflow ? nil : total
    }

    /// A bitmap with every byte zero (transparent black for `rgba8Premultiplied`; `rgbx8` padding bytes
    /// are set to 255). Nil when a dimension is not positive or the size overflows.
    public init?(width: Int, height: Int, format: PixelFormat) {
        guard let bitmap = Bitmap(uninitializedWidth: width, height: height, format: format) else { return nil }
        self = bitmap
        let count = bytesPerRow * height
        storage.pointer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        if format == .rgbx8 {
            fillPaddingAlpha()
        }
    }

    /// A bitmap whose pixel bytes are not initialised; the caller must write every pixel byte
    /// (row padding is zeroed here). Used by decoders that fill the whole buffer (the WebP plug-in too).
    package init?(uninitializedWidth width: Int, height: Int, format: PixelFormat) {
        guard let rowBytes = Bitmap.alignedBytesPerRow(width: width, format: format),
            let total = Bitmap.byteCount(width: width, height: height, format: format)
        else { return nil }
        self.width = width
        self.height = height
        self.bytesPerRow = rowBytes
        self.format = format
        self.storage = BitmapStorage(byteCount: total)
        let used = width * format.bytesPerPixel
        if used < rowBytes {
            for y in 0..<height {
                (storage.pointer + y * rowBytes + used).initializeMemory(
                    as: UInt8.self, repeating: 0, count: rowBytes - used)
            }
        }
    }

    /// Bytes this bitmap holds in memory: `bytesPerRow * height`. Cache budgets count this.
    public var memoryCost: Int { bytesPerRow * height }

    /// The dimensions in pixels.
    public var dimensions: CGSize { CGSize(width: width, height: height) }

    /// Whether the format can carry transparency (it says nothing about the actual pixels).
    public var hasAlpha: Bool { format.hasAlpha }

    /// Calls `body` with the pixel bytes (`bytesPerRow * height` of them).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.pointer, count: storage.byteCount))
    }

    /// Calls `body` with writable pixel bytes, copying the storage first if it is shared or borrowed
    /// (a bitmap over external memory never writes into it).
    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        if !isKnownUniquelyReferenced(&storage) || storage.isBorrowed {
            storage = storage.copy()
        }
        return try body(UnsafeMutableRawBufferPointer(start: storage.pointer, count: storage.byteCount))
    }

    /// The pixel at (`x`, `y`) as premultiplied RGBA (gray is replicated, opaque formats report 255).
    public func pixel(x: Int, y: Int) -> SIMD4<UInt8> {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        return format.loadPixel(from: storage.pointer + y * bytesPerRow + x * format.bytesPerPixel)
    }

    /// Sets the pixel at (`x`, `y`) from premultiplied RGBA (gray takes the rounded luma; opaque
    /// formats ignore alpha).
    public mutating func setPixel(x: Int, y: Int, _ value: SIMD4<UInt8>) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        let offset = y * bytesPerRow + x * format.bytesPerPixel
        let format = self.format
        withUnsafeMutableBytes { bytes in
            format.storePixel(value, to: bytes.baseAddress! + offset)
        }
    }

    /// Whether any pixel is not fully opaque (always false for opaque formats).
    public func containsTransparency() -> Bool {
        guard format == .rgba8Premultiplied else { return false }
        return withUnsafeBytes { bytes in
            for y in 0..<height {
                let row = bytes.baseAddress! + y * bytesPerRow
                for x in 0..<width where row.load(fromByteOffset: x * 4 + 3, as: UInt8.self) != 255 {
                    return true
                }
            }
            return false
        }
    }

    /// The same pixels converted to `format` (alpha is flattened onto black for opaque formats).
    public func converted(to newFormat: PixelFormat) -> Bitmap {
        if newFormat == format { return self }
        if format == .rgbx8 && newFormat == .rgba8Premultiplied {
            // Same bytes (the padding byte is 255): share the storage, copied on the first write.
            return Bitmap(width: width, height: height, bytesPerRow: bytesPerRow, format: newFormat, storage: storage)
        }
        var out = Bitmap(uninitializedWidth: width, height: height, format: newFormat)!
        let src = self
        let dstStride = out.bytesPerRow
        out.withUnsafeMutableBytes { dst in
            src.withUnsafeBytes { s in
                for y in 0..<height {
                    let sRow = s.baseAddress! + y * src.bytesPerRow
                    let dRow = dst.baseAddress! + y * dstStride
                    for x in 0..<width {
                        let v: SIMD4<UInt8>
                        switch src.format {
                        case .gray8:
                            let g = sRow.load(fromByteOffset: x, as: UInt8.self)
                            v = SIMD4(g, g, g, 255)
                        case .rgbx8:
                            var t = sRow.loadUnaligned(fromByteOffset: x * 4, as: SIMD4<UInt8>.self)
                            t[3] = 255
                            v = t
                        case .rgba8Premultiplied:
                            v = sRow.loadUnaligned(fromByteOffset: x * 4, as: SIMD4<UInt8>.self)
                        }
                        switch newFormat {
                        case .rgba8Premultiplied:
                            dRow.storeBytes(of: v, toByteOffset: x * 4, as: SIMD4<UInt8>.self)
                        case .rgbx8:
                            dRow.storeBytes(
                                of: SIMD4(v[0], v[1], v[2], 255), toByteOffset: x * 4, as: SIMD4<UInt8>.self)
                        case .gray8:
                            let luma = (299 * Int(v[0]) + 587 * Int(v[1]) + 114 * Int(v[2]) + 500) / 1000
                            dRow.storeBytes(of: UInt8(luma), toByteOffset: x, as: UInt8.self)
                        }
                    }
                }
            }
        }
        return out
    }

    private init(width: Int, height: Int, bytesPerRow: Int, format: PixelFormat, storage: BitmapStorage) {
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.format = format
        self.storage = storage
    }

    private mutating func fillPaddingAlpha() {
        let w = width, h = height, stride = bytesPerRow
        withUnsafeMutableBytes { bytes in
            for y in 0..<h {
                let row = bytes.baseAddress! + y * stride
                for x in 0..<w {
                    row.storeBytes(of: 255, toByteOffset: x * 4 + 3, as: UInt8.self)
                }
            }
        }
    }
}

extension Bitmap {
    /// A bitmap that views `bytesPerRow * height` bytes at `pointer` without copying them (a memory-mapped
    /// image table entry, say); nil when a dimension is not positive or `pointer` is not 64-byte aligned.
    ///
    /// ```swift
    /// let view = Bitmap(width: 64, height: 64, format: .rgbx8, borrowing: entryPixels, owner: mapping)
    /// ```
    ///
    /// `bytesPerRow` is ``alignedBytesPerRow(width:format:)``, and the memory must follow the type's rules
    /// (zero row padding; `rgbx8`'s fourth byte 255) and stay unchanged while any copy of the bitmap lives.
    /// `owner` is retained until the last copy goes away, so it can keep the memory alive (unmap in its
    /// `deinit`). The memory is never written: mutating a copy first copies the pixels into memory of its own.
    public init?(
        width: Int, height: Int, format: PixelFormat, borrowing pointer: UnsafeRawPointer,
        owner: any AnyObject & Sendable
    ) {
        guard let rowBytes = Bitmap.alignedBytesPerRow(width: width, format: format),
            let total = Bitmap.byteCount(width: width, height: height, format: format),
            Int(bitPattern: pointer) % Bitmap.rowAlignment == 0
        else { return nil }
        self.width = width
        self.height = height
        self.bytesPerRow = rowBytes
        self.format = format
        self.storage = BitmapStorage(borrowing: pointer, byteCount: total, owner: owner)
    }

    /// Whether the pixels are borrowed memory (``init(width:height:format:borrowing:owner:)``) rather than
    /// the bitmap's own.
    public var isBorrowingMemory: Bool { storage.isBorrowed }

    /// Whether the pixels live in a memory mapping of their own (``BitmapStorage/mappingThreshold``).
    var isMapped: Bool { storage.isMapped }

    /// Whether no other copy of this bitmap shares its storage. Image tables use it to tell whether a view of
    /// an entry is still alive somewhere before reusing the entry's memory.
    package mutating func isStorageUniquelyReferenced() -> Bool {
        isKnownUniquelyReferenced(&storage)
    }
}

extension Bitmap: Equatable {
    /// Two bitmaps are equal when they have the same size, format and pixel bytes (row padding ignored).
    public static func == (lhs: Bitmap, rhs: Bitmap) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height, lhs.format == rhs.format else { return false }
        if lhs.storage === rhs.storage { return true }
        let used = lhs.width * lhs.format.bytesPerPixel
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in
                for y in 0..<lhs.height
                where memcmp(a.baseAddress! + y * lhs.bytesPerRow, b.baseAddress! + y * rhs.bytesPerRow, used) != 0 {
                    return false
                }
                return true
            }
        }
    }
}

/// The pixel buffer behind a ``Bitmap``. Immutable once shared: `Bitmap` copies it before any write
/// unless it holds the only reference, which is what makes `@unchecked Sendable` sound here. Buffers of
/// ``mappingThreshold`` bytes or more get their own mapping (``PageMapping``, through
/// ``BitmapMappingPool``), so their pages go back to the system rather than to glibc's heaps.
final class BitmapStorage: @unchecked Sendable {
    /// The smallest buffer given its own mapping: a 128x128 RGBX thumbnail. Thumbnails the rendered cache
    /// kept on glibc's heaps sat among the short-lived blocks of downloads and decodes, so the heaps could
    /// not shrink: 1,000 fetches to 200 px held 40 MB of heap for 20 MB in use (at 256 KiB, the threshold
    /// for download bodies). Mapped, the heaps stay at about 5 MB and an evicted thumbnail's mapping serves
    /// the next one from the pool.
    static let mappingThreshold = 64 * 1024

    /// The largest new mapping whose pages are provided at once (``PageMapping/map(_:populated:)``): a page
    /// fault per 4 KiB in new bitmaps (thumbnails, scaled decodes, PNGs, all written whole right away) was
    /// about half of a warm main job's 20,000 page faults. Larger bitmaps fault page by page as before, so a
    /// hostile header's size costs no memory beyond this until its rows are actually written.
    static let populatedLimit = 16 << 20

    let pointer: UnsafeMutableRawPointer
    let byteCount: Int
    /// The mapping's length; 0 for heap storage.
    private let mappedLength: Int

    /// What keeps borrowed memory alive (``Bitmap/init(width:height:format:borrowing:owner:)``); nil when
    /// this storage owns its buffer.
    private let owner: (any AnyObject & Sendable)?

    /// Whether the buffer belongs to someone else: it is never written nor freed here.
    var isBorrowed: Bool { owner != nil }

    /// Whether the buffer is a mapping of its own rather than heap memory.
    var isMapped: Bool { mappedLength > 0 }

    init(byteCount: Int) {
        self.byteCount = byteCount
        owner = nil
        if byteCount >= Self.mappingThreshold,
            let mapped = BitmapMappingPool.shared.take(byteCount, populated: byteCount <= Self.populatedLimit)
        {
            pointer = mapped.pointer
            mappedLength = mapped.length
        } else {
            pointer = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: Bitmap.rowAlignment)
            mappedLength = 0
        }
    }

    func copy() -> BitmapStorage {
        let copy = BitmapStorage(byteCount: byteCount)
        copy.pointer.copyMemory(from: pointer, byteCount: byteCount)
        return copy
    }

    /// Storage over `byteCount` bytes at `pointer` that `owner` keeps alive; the copy-on-write path copies
    /// out before any write, so the bytes are only ever read.
    init(borrowing pointer: UnsafeRawPointer, byteCount: Int, owner: any AnyObject & Sendable) {
        self.pointer = UnsafeMutableRawPointer(mutating: pointer)
        self.byteCount = byteCount
        self.owner = owner
        mappedLength = 0
    }

    deinit {
        if owner != nil { return }
        if mappedLength > 0 {
            BitmapMappingPool.shared.give(pointer, length: mappedLength)
        } else {
            pointer.deallocate()
        }
    }
}
