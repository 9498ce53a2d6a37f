import CTurboJPEG
import Dispatch
import Foundation

extension JPEGDecoder {
    /// Smallest JPEG worth splitting: below this the thread hand-off costs more than it saves.
    static let parallelDecodingMinimumBytes = 256 * 1024

    /// Decodes a JPEG with restart markers as independent horizontal bands on the processors idle at `gate`
    /// (``DecodeGate/parallelism(processors:limit:)``), straight into `destination` (the rows of the whole scaled
    /// image). Returns false — having written nothing that matters — when other decodes keep the processors busy
    /// (TIP's sequential decoder then takes less CPU time than TurboJPEG's bands), the stream cannot be split or
    /// any band reports an error or a warning; the caller then decodes sequentially, which also produces the
    /// partial-image behaviour for damaged data. The output is byte-identical to one sequential decode (see
    /// ``JPEGRestartSplitter`` for why).
    static func decodeInParallel(
        _ base: UnsafePointer<UInt8>, count: Int, scale: JPEGScaleSelection,
        pixelFormat: Int32, destination: UnsafeMutableRawPointer, pitch: Int, gate: DecodeGate = .shared
    ) -> Bool {
        guard count >= parallelDecodingMinimumBytes else { return false }
        let bands = gate.parallelism()
        guard bands >= 2, let parts = JPEGRestartSplitter.split(base, count: count, parts: bands)
        else { return false }
        // Map each band's rows to the scaled image; they must tile it exactly.
        var bandRows: [(data: Data, firstRow: Int, rows: Int)] = []
        var nextRow = 0
        for part in parts {
            guard (part.firstRow * scale.numerator) % scale.denominator == 0 else { return false }
            let first = part.firstRow * scale.numerator / scale.denominator
            let rows = JPEGScaleSelection.scaled(part.rowCount, scale.numerator, scale.denominator)
            guard first == nextRow else { return false }
            bandRows.append((part.data, first, rows))
            nextRow = first + rows
        }
        guard nextRow == scale.scaledHeight else { return false }
        let work = bandRows

        let failures = Locked(0)
        let target = UnsafeSendablePointer(pointer: destination)
        let width = Int32(scale.scaledWidth)
        DispatchQueue.concurrentPerform(iterations: work.count) { index in
            let band = work[index]
            let status =
                TurboJPEGHandlePool.decompressors.withHandle { handle, discard -> Int32 in
                    let result = band.data.withUnsafeBytes { src in
                        tjDecompress2(
                            handle, src.bindMemory(to: UInt8.self).baseAddress, UInt(band.data.count),
                            (target.pointer + band.firstRow * pitch).assumingMemoryBound(to: UInt8.self),
                            width, Int32(pitch), Int32(band.rows), pixelFormat, 0)
                    }
                    if result != 0 { discard = true }
                    return result
                } ?? -1
            if status != 0 { failures.withLock { $0 += 1 } }
        }
        return failures.withLock { $0 } == 0
    }
}
