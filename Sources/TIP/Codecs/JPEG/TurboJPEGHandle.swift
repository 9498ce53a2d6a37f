import CTurboJPEG

/// A TurboJPEG handle that may cross threads: a handle is used by one thread at a time, which the
/// pool guarantees by handing each one out exclusively.
struct TurboJPEGHandle: @unchecked Sendable {
    let raw: tjhandle
}
