import CWebP
import TIP

/// libwebp's status codes as ``ImageDecodingError``s.
enum WebPStatus {
    /// The error for a failed libwebp call that returned `status`.
    static func error(_ status: VP8StatusCode, while action: String) -> ImageDecodingError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: return .truncatedData
        case VP8_STATUS_UNSUPPORTED_FEATURE: return .unsupported("libwebp: unsupported feature while \(action)")
        case VP8_STATUS_OUT_OF_MEMORY: return .corruptData("libwebp ran out of memory while \(action)")
        default: return .corruptData("libwebp status \(status.rawValue) while \(action)")
        }
    }
}
