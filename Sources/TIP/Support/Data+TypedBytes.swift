import Foundation

extension Data {
    /// `withUnsafeBytes` for a body that throws ``ImageDecodingError`` (Foundation's only rethrows
    /// untyped errors). Shared with the optional codec plug-ins.
    package func withTypedBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ImageDecodingError) -> R)
        throws(ImageDecodingError) -> R
    {
        let result: Result<R, ImageDecodingError> = withUnsafeBytes { bytes in
            do throws(ImageDecodingError) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
