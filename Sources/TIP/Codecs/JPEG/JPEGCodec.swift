import Foundation

/// The JPEG codec. (Placeholder until the real implementation lands.)
public struct JPEGCodec: ImageCodec {
    /// Makes the codec.
    public init() {}
    /// The decoder.
    public var decoder: any ImageDecoder { PlaceholderJPEGDecoder() }
}

struct PlaceholderJPEGDecoder: ImageDecoder {
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection { .noMatch }
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        throw .unsupported("not implemented")
    }
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        fatalError("not implemented")
    }
}
