import Foundation

/// The PNG codec. (Placeholder until the real implementation lands.)
public struct PNGCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder.
    public var decoder: any ImageDecoder { PlaceholderPNGDecoder() }
}

struct PlaceholderPNGDecoder: ImageDecoder {
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection { .noMatch }
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        throw .unsupported("not implemented")
    }
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        fatalError("not implemented")
    }
}
