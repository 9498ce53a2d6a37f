import CWebP
import Foundation
import TIP

/// What the header of a WebP file says, read by libwebp's `WebPGetFeatures` (no pixel work).
struct WebPHeader {
    /// Width in pixels (the canvas for an animation).
    var width: Int
    /// Height in pixels (the canvas for an animation).
    var height: Int
    /// Whether the bitstream has an alpha channel.
    var hasAlpha: Bool
    /// Whether the file is an animation (VP8X with the animation flag).
    var isAnimated: Bool

    /// The header of `bytes`, or nil when more bytes are needed. Throws on anything that is not a
    /// valid WebP header.
    static func read(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> WebPHeader? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        switch WebPSignature.detect(bytes, isComplete: false) {
        case .noMatch: throw .unrecognizedFormat
        case .needMoreData: return nil
        case .match: break
        }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(base.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        if status == VP8_STATUS_NOT_ENOUGH_DATA { return nil }
        guard status == VP8_STATUS_OK else { throw WebPStatus.error(status, while: "reading the header") }
        return WebPHeader(
            width: Int(features.width), height: Int(features.height),
            hasAlpha: features.has_alpha != 0, isAnimated: features.has_animation != 0)
    }
}

/// The "RIFF....WEBP" signature.
enum WebPSignature {
    private static let pattern: [UInt8?] = [0x52, 0x49, 0x46, 0x46, nil, nil, nil, nil, 0x57, 0x45, 0x42, 0x50]

    /// Whether `bytes` (possibly a prefix) start with the signature.
    static func detect(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) -> ImageDecoderDetection {
        let count = min(bytes.count, pattern.count)
        for i in 0..<count {
            if let expected = pattern[i], bytes[i] != expected { return .noMatch }
        }
        if count < pattern.count { return isComplete ? .noMatch : .needMoreData }
        return .match
    }
}
