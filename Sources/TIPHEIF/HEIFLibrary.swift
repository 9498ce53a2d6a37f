import CHeif
import TIP

/// libheif, initialised once per process, and what this build of it can do. Debian 12's libheif 1.15
/// decodes HEVC with libde265 and AV1 with dav1d (or aom), and encodes HEVC with x265 and AV1 with
/// aom; another build may lack some of them, so the codecs ask here at run time.
enum HEIFLibrary {
    /// Runs `heif_init` once (reference counted by libheif; never balanced, as the process keeps using it).
    private static let initialised: Bool = {
        heif_init(nil).code == heif_error_Ok
    }()

    /// Makes sure libheif is initialised before any other call.
    static func prepare() {
        _ = initialised
    }

    /// Whether libheif has a decoder for `compression`.
    static func canDecode(_ compression: heif_compression_format) -> Bool {
        prepare()
        return heif_have_decoder_for_format(compression) != 0
    }

    /// Whether libheif has an encoder for `compression`.
    static func canEncode(_ compression: heif_compression_format) -> Bool {
        prepare()
        return heif_have_encoder_for_format(compression) != 0
    }

    /// libheif's version string, e.g. "1.15.1".
    static var version: String {
        String(cString: heif_get_version())
    }

    /// The typed decoding error for a failed libheif call.
    static func decodingError(_ error: heif_error, while action: String) -> ImageDecodingError {
        let message = error.message.map { String(cString: $0) } ?? "no message"
        let text = "libheif: \(message) (\(error.code.rawValue).\(error.subcode.rawValue)) while \(action)"
        switch error.code {
        case heif_error_Unsupported_feature, heif_error_Unsupported_filetype:
            return .unsupported(text)
        default:
            if error.subcode == heif_suberror_End_of_data { return .truncatedData }
            return .corruptData(text)
        }
    }
}
