import COpenJPEG

/// An OpenJPEG input stream over bytes in memory (OpenJPEG only ships file streams). Reads, skips and
/// seeks stop at the end of the bytes.
///
/// The bytes must stay valid for the stream's lifetime. Not thread-safe: one decode at a time.
final class OpenJPEGInputStream {
    /// `(OPJ_SIZE_T)-1`, OpenJPEG's "end of stream" from a read function. `size_t` imports as
    /// `Int`, so this is -1, not `OPJ_SIZE_T.max` (which OpenJPEG would take as a byte count).
    static let endOfStream: OPJ_SIZE_T = -1

    /// The `opj_stream_t`.
    let stream: UnsafeMutablePointer<opj_stream_t?>
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    /// A stream over `bytes`; nil when OpenJPEG cannot allocate one.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard let stream = opj_stream_create(64 * 1024, 1) else { return nil }
        self.stream = stream
        self.bytes = bytes
        opj_stream_set_user_data(stream, Unmanaged.passUnretained(self).toOpaque(), nil)
        opj_stream_set_user_data_length(stream, UInt64(bytes.count))
        opj_stream_set_read_function(stream) { buffer, count, context in
            guard let buffer, let context else { return OpenJPEGInputStream.endOfStream }
            return Unmanaged<OpenJPEGInputStream>.fromOpaque(context).takeUnretainedValue().read(
                into: buffer, count: count)
        }
        opj_stream_set_skip_function(stream) { count, context in
            guard let context else { return -1 }
            return Unmanaged<OpenJPEGInputStream>.fromOpaque(context).takeUnretainedValue().skip(count)
        }
        opj_stream_set_seek_function(stream) { offset, context in
            guard let context else { return 0 }
            return Unmanaged<OpenJPEGInputStream>.fromOpaque(context).takeUnretainedValue().seek(to: offset) ? 1 : 0
        }
    }

    deinit {
        opj_stream_destroy(stream)
    }

    private func read(into buffer: UnsafeMutableRawPointer, count: OPJ_SIZE_T) -> OPJ_SIZE_T {
        guard position < bytes.count, let base = bytes.baseAddress else { return OpenJPEGInputStream.endOfStream }
        let length = min(Int(clamping: count), bytes.count - position)
        buffer.copyMemory(from: base + position, byteCount: length)
        position += length
        return OPJ_SIZE_T(length)
    }

    private func skip(_ count: OPJ_OFF_T) -> OPJ_OFF_T {
        guard count >= 0, position < bytes.count else { return -1 }
        let length = min(Int(count), bytes.count - position)
        position += length
        return OPJ_OFF_T(length)
    }

    /// Seeking past the end fails: OpenJPEG asserts (and Debian builds keep assertions) when its
    /// offset passes the data length it was given.
    private func seek(to offset: OPJ_OFF_T) -> Bool {
        guard offset >= 0, offset <= OPJ_OFF_T(bytes.count) else { return false }
        position = Int(offset)
        return true
    }
}
