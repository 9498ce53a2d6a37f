import COpenJPEG
import Foundation

/// An OpenJPEG output stream into memory. The JP2 writer seeks back to fill in box lengths, so
/// writes land at the current position and the buffer grows as needed.
///
/// Not thread-safe: one encode at a time.
final class OpenJPEGOutputStream {
    /// The `opj_stream_t`.
    let stream: UnsafeMutablePointer<opj_stream_t?>
    private var buffer: [UInt8] = []
    private var position = 0
    private var length = 0

    /// An empty output stream; nil when OpenJPEG cannot allocate one.
    init?() {
        guard let stream = opj_stream_create(64 * 1024, 0) else { return nil }
        self.stream = stream
        opj_stream_set_user_data(stream, Unmanaged.passUnretained(self).toOpaque(), nil)
        opj_stream_set_write_function(stream) { source, count, context in
            guard let source, let context else { return OpenJPEGInputStream.endOfStream }
            return Unmanaged<OpenJPEGOutputStream>.fromOpaque(context).takeUnretainedValue().write(source, count: count)
        }
        opj_stream_set_skip_function(stream) { count, context in
            guard let context else { return -1 }
            return Unmanaged<OpenJPEGOutputStream>.fromOpaque(context).takeUnretainedValue().skip(count)
        }
        opj_stream_set_seek_function(stream) { offset, context in
            guard let context else { return 0 }
            return Unmanaged<OpenJPEGOutputStream>.fromOpaque(context).takeUnretainedValue().seek(to: offset) ? 1 : 0
        }
    }

    deinit {
        opj_stream_destroy(stream)
    }

    /// Everything written so far.
    var data: Data { Data(buffer[0..<length]) }

    private func write(_ source: UnsafeMutableRawPointer, count: OPJ_SIZE_T) -> OPJ_SIZE_T {
        let count = Int(clamping: count)
        let end = position + count
        if buffer.count < end { buffer.append(contentsOf: repeatElement(0, count: end - buffer.count)) }
        buffer.withUnsafeMutableBytes { destination in
            guard let base = destination.baseAddress else { return }
            (base + position).copyMemory(from: source, byteCount: count)
        }
        position = end
        length = max(length, end)
        return OPJ_SIZE_T(count)
    }

    private func skip(_ count: OPJ_OFF_T) -> OPJ_OFF_T {
        let target = position + Int(count)
        guard target >= 0 else { return -1 }
        position = target
        return count
    }

    private func seek(to offset: OPJ_OFF_T) -> Bool {
        guard offset >= 0 else { return false }
        position = Int(offset)
        return true
    }
}
