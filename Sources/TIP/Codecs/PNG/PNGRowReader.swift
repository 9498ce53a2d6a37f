import CPNG
import Foundation

/// Owns one libpng progressive decode and the canvas its rows land in.
///
/// Bytes are fed as they arrive; ``image(finalizing:)`` hands out the canvas with every row that
/// has not been decoded yet filled with a defined colour (transparent, or opaque black).
/// Not thread-safe: one owner at a time.
final class PNGRowReader {
    let header: PNGHeader
    let format: PixelFormat
    private let reader: OpaquePointer
    private var canvas: Bitmap

    /// A reader for `header` writing `format`; nil when memory runs out. With `initializeCanvas`
    /// false (allowed only for non-interlaced images, whose rows are written whole and in order),
    /// the canvas starts uninitialised and only the rows left undecoded are filled at the end.
    init?(header: PNGHeader, format: PixelFormat, initializeCanvas: Bool) {
        let canvas: Bitmap?
        if initializeCanvas || header.isInterlaced {
            canvas = Bitmap(width: header.width, height: header.height, format: format)
        } else {
            canvas = Bitmap(uninitializedWidth: header.width, height: header.height, format: format)
        }
        guard let canvas,
            let reader = tip_png_reader_create(UInt32(header.width), UInt32(header.height), format.pngReaderOutput)
        else { return nil }
        self.header = header
        self.format = format
        self.canvas = canvas
        self.reader = reader
    }

    deinit {
        tip_png_reader_destroy(reader)
    }

    /// Decodes `bytes`; returns false once libpng has failed (the rows decoded so far remain).
    @discardableResult
    func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return !status.failed }
        let stride = canvas.bytesPerRow
        let reader = self.reader
        return canvas.withUnsafeMutableBytes { pixels in
            tip_png_reader_feed(
                reader, base.assumingMemoryBound(to: UInt8.self), bytes.count,
                pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), stride) == 0
        }
    }

    /// The reader's progress.
    var status: Status {
        var raw = tip_png_reader_status()
        tip_png_reader_get_status(reader, &raw)
        let message = withUnsafeBytes(of: raw.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        // libpng reaches IEND without an error even when the image data ran out early: a
        // non-interlaced image is whole only once its last row arrived (the rows below would
        // otherwise be handed out unwritten).
        let finishedWhole = raw.finished != 0 && (header.isInterlaced || Int(raw.rows_written) == header.height)
        return Status(
            failed: raw.failed != 0, isFinished: raw.finished != 0,
            pixelsComplete: raw.pixels_complete != 0 || finishedWhole,
            rowsWritten: Int(raw.rows_written), message: message)
    }

    /// What a reader has achieved.
    struct Status {
        var failed: Bool
        var isFinished: Bool
        var pixelsComplete: Bool
        var rowsWritten: Int
        var message: String
    }

    /// The canvas with undecoded rows filled, or nil when no row has been decoded. With
    /// `finalizing`, the canvas itself is handed out and filled in place (the reader must not be fed
    /// afterwards); otherwise the copy-on-write copy is filled and the canvas stays as decoded.
    func image(finalizing: Bool) -> (bitmap: Bitmap, isWhole: Bool)? {
        let status = self.status
        guard status.rowsWritten > 0 else { return nil }
        let isWhole = status.pixelsComplete
        // Interlaced canvases start filled, so rows below the last pass-0 row already hold the fill.
        let firstUnwritten = header.isInterlaced || isWhole ? header.height : status.rowsWritten
        var bitmap = canvas
        if finalizing { canvas = PNGRowReader.placeholder }
        if firstUnwritten < header.height {
            bitmap.fillMissingRows(firstUnwritten..<header.height)
        }
        return (bitmap, isWhole)
    }

    private static let placeholder = Bitmap(width: 1, height: 1, format: .gray8)!
}

extension PixelFormat {
    /// The CPNG output constant for this format.
    var pngReaderOutput: Int32 {
        switch self {
        case .gray8: return Int32(TIP_PNG_OUTPUT_GRAY8)
        case .rgbx8: return Int32(TIP_PNG_OUTPUT_RGBX8)
        case .rgba8Premultiplied: return Int32(TIP_PNG_OUTPUT_RGBA8_PREMULTIPLIED)
        }
    }
}
