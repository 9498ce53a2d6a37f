/// A raw pointer handed to the bands of a parallel decode (JPEG restart intervals, TIFF strips); each
/// band writes only its own rows, which is what makes sharing it sound.
struct UnsafeSendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
