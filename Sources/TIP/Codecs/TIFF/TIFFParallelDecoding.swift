import CTIFF
import Dispatch
import Foundation

extension TIFFDecoder {
    /// Smallest image worth splitting (pixels): below this the thread hand-off costs more than it saves.
    static let parallelDecodingMinimumPixels = 1 << 18

    /// Decodes a TIFF whose rows lie in several strips (or rows of tiles) as independent horizontal bands
    /// on the processors idle at `gate` (``DecodeGate/parallelism(processors:limit:)``), each band through its
    /// own libtiff handle over the same bytes (`first` serves the first band), straight into `bitmap`. Strips
    /// and tiles are compressed independently, so the pixels are exactly those of one sequential decode.
    /// Returns false — having written nothing that matters — when the image is too small or has one strip,
    /// when other decodes keep the processors busy, or when any band reports an error: the caller then decodes
    /// sequentially, which also gives the partial-image behaviour for damaged data.
    static func decodeInParallel(
        _ bytes: UnsafeRawBufferPointer, first: OpaquePointer, info: tip_tiff_info, allocationLimit: UInt64,
        into bitmap: inout Bitmap, gate: DecodeGate = .shared
    ) -> Bool {
        let height = Int(info.height), piece = max(1, Int(info.rows_per_piece))
        let pieces = (height + piece - 1) / piece
        guard pieces >= 2, Int(info.width) * height >= parallelDecodingMinimumPixels,
            let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return false }
        let bandCount = min(gate.parallelism(), pieces)
        guard bandCount >= 2 else { return false }
        let piecesPerBand = (pieces + bandCount - 1) / bandCount
        let bands = stride(from: 0, to: pieces, by: piecesPerBand).map { start in
            (firstRow: start * piece, rows: min(height, (start + piecesPerBand) * piece) - start * piece)
        }
        let failures = Locked(0)
        let stride = bitmap.bytesPerRow
        let handle = UnsafeSendableHandle(first: first, bytes: base, count: bytes.count)
        bitmap.withUnsafeMutableBytes { pixels in
            guard let target = pixels.baseAddress else { return }
            let raster = UnsafeSendablePointer(pointer: target)
            DispatchQueue.concurrentPerform(iterations: bands.count) { index in
                let band = bands[index]
                var message = [CChar](repeating: 0, count: 256)
                var bandInfo = tip_tiff_info()
                let image: OpaquePointer?
                if index == 0 {
                    image = handle.first
                } else {
                    image = tip_tiff_open(
                        handle.bytes, handle.count, allocationLimit, &bandInfo, &message, message.count)
                }
                defer { if index != 0 { tip_tiff_close(image) } }
                var complete: UInt32 = 0
                let status = tip_tiff_read_rgba_rows(
                    image, (raster.pointer + band.firstRow * stride).assumingMemoryBound(to: UInt8.self),
                    stride, UInt32(band.firstRow), UInt32(band.rows), &complete, &message, message.count)
                if status != Int32(TIP_TIFF_OK) { failures.withLock { $0 += 1 } }
            }
        }
        return failures.withLock { $0 } == 0
    }
}

/// The first band's open image and the file's bytes, handed to the bands of a parallel decode; each band
/// uses its own handle (the first band `first`), and the bytes are only read.
private struct UnsafeSendableHandle: @unchecked Sendable {
    let first: OpaquePointer
    let bytes: UnsafePointer<UInt8>
    let count: Int
}
