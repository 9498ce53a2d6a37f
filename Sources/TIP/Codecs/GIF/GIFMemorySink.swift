import CGIF
import Foundation

/// Where giflib's encoder writes (through ``gifWriteToMemory(_:_:_:)``). Used by one encode on one
/// thread only; passed unretained as the `userPtr` of `EGifOpen`.
final class GIFMemorySink {
    /// Everything written so far.
    var data = Data()
}

/// giflib `OutputFunc` appending to a ``GIFMemorySink``.
func gifWriteToMemory(_ gif: UnsafeMutablePointer<GifFileType>?, _ bytes: UnsafePointer<GifByteType>?, _ length: Int32)
    -> Int32
{
    guard let gif, let bytes, length >= 0, let user = gif.pointee.UserData else { return 0 }
    let sink = Unmanaged<GIFMemorySink>.fromOpaque(user).takeUnretainedValue()
    sink.data.append(bytes, count: Int(length))
    return length
}
