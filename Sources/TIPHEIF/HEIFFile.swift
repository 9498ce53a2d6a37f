import CHeif
import TIP

/// A HEIF file read by libheif from bytes in memory (not copied: they must outlive the file), with
/// its primary image. Reading parses the boxes only; no pixel is decoded.
///
/// Not thread-safe: one decode, on one thread.
final class HEIFFile {
    private let context: OpaquePointer
    /// The primary image.
    let primary: HEIFImageHandle

    /// Reads the boxes of `bytes`. libheif refuses any image (primary, thumbnail, alpha or tile) with
    /// a side above `maximumSide` pixels before allocating for it.
    ///
    /// The header of a file still arriving is read from its first bytes padded with zeros to the
    /// file's full length (`HEIFDecoderContext`): libheif checks every `iloc` extent against the
    /// length it is given, and reads metadata items (Exif) while parsing.
    init(_ bytes: UnsafeRawBufferPointer, maximumSide: Int) throws(ImageDecodingError) {
        HEIFLibrary.prepare()
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .emptyData }
        guard let context = heif_context_alloc() else { throw .unsupported("libheif could not allocate a context") }
        heif_context_set_maximum_image_size_limit(context, Int32(clamping: max(1, min(maximumSide, 32768))))
        let read = heif_context_read_from_memory_without_copy(context, base, bytes.count, nil)
        guard read.code == heif_error_Ok else {
            // The message lives in the context: make the error before freeing it.
            let error = HEIFLibrary.decodingError(read, while: "reading the file")
            heif_context_free(context)
            throw error
        }
        var handle: OpaquePointer?
        let primaryError = heif_context_get_primary_image_handle(context, &handle)
        guard primaryError.code == heif_error_Ok, let handle else {
            let error = HEIFLibrary.decodingError(primaryError, while: "finding the primary image")
            heif_context_free(context)
            throw error
        }
        self.context = context
        self.primary = HEIFImageHandle(handle)
    }

    deinit {
        heif_context_free(context)
    }
}
