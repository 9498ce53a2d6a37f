import CGIF
import Foundation

/// Bytes in memory that giflib reads through ``gifReadFromMemory(_:_:_:)``; it is passed as the
/// `userPtr` of `DGifOpen` and must outlive the `GifFileType`.
struct GIFMemorySource {
    /// The first byte (nil when empty).
    let base: UnsafePointer<UInt8>?
    /// How many bytes there are.
    let count: Int
    /// The next byte giflib gets.
    var offset = 0
}

/// giflib `InputFunc` over a ``GIFMemorySource``: copies up to `length` bytes, returning fewer (down
/// to 0) at the end of the data, which giflib reports as `D_GIF_ERR_READ_FAILED`.
func gifReadFromMemory(
    _ gif: UnsafeMutablePointer<GifFileType>?, _ buffer: UnsafeMutablePointer<GifByteType>?, _ length: Int32
) -> Int32 {
    guard let gif, let buffer, length > 0, let user = gif.pointee.UserData else { return 0 }
    let source = user.assumingMemoryBound(to: GIFMemorySource.self)
    let available = source.pointee.count - source.pointee.offset
    let n = min(Int(length), available)
    guard n > 0, let base = source.pointee.base else { return 0 }
    buffer.update(from: base + source.pointee.offset, count: n)
    source.pointee.offset += n
    return Int32(n)
}
