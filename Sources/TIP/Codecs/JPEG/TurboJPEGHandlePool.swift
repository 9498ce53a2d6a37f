import CTurboJPEG

/// Reuses TurboJPEG handles instead of creating one per call (`tjInitDecompress` costs a few
/// allocations). Thread-safe: the idle list is guarded by a `Locked`.
final class TurboJPEGHandlePool: Sendable {
    /// Which kind of handle a pool holds.
    enum Kind: Sendable { case decompress, compress }

    /// Shared decompression handles.
    static let decompressors = TurboJPEGHandlePool(kind: .decompress)
    /// Shared compression handles for baseline output.
    static let compressors = TurboJPEGHandlePool(kind: .compress)
    /// Shared compression handles for progressive output. Kept apart because libjpeg-turbo 2.1
    /// leaves the progressive scan script on a handle, which corrupts a later baseline compress.
    static let progressiveCompressors = TurboJPEGHandlePool(kind: .compress)

    private let kind: Kind
    private let idle = Locked<[TurboJPEGHandle]>([])
    /// Handles kept for reuse at most; extras are destroyed.
    private let capacity = 8

    init(kind: Kind) { self.kind = kind }

    /// Runs `body` with an exclusive handle, or returns nil when TurboJPEG cannot make one. `body`
    /// sets its flag to true to have the handle destroyed instead of reused: after a failure a
    /// handle may keep state (e.g. tables from a truncated header) that breaks later calls. With `fresh`
    /// set, the handle is a new one, destroyed afterwards: libjpeg keeps the Huffman and quantization tables
    /// of earlier images on a decompressor (for abbreviated streams), so a file that uses a table it does not
    /// define must not meet a used handle (see ``JPEGMarkerScanner/definesItsTables``).
    func withHandle<R>(fresh: Bool = false, _ body: (tjhandle, inout Bool) -> R) -> R? {
        let reused = fresh ? nil : idle.withLock { $0.popLast() }
        let handle: TurboJPEGHandle
        if let reused {
            handle = reused
        } else {
            let made: tjhandle? = kind == .decompress ? tjInitDecompress() : tjInitCompress()
            guard let made else { return nil }
            handle = TurboJPEGHandle(raw: made)
        }
        var discard = fresh
        let result = body(handle.raw, &discard)
        if discard {
            tjDestroy(handle.raw)
            return result
        }
        let kept = idle.withLock { list -> Bool in
            guard list.count < capacity else { return false }
            list.append(handle)
            return true
        }
        if !kept { tjDestroy(handle.raw) }
        return result
    }
}
