import COpenJPEG
import Foundation

/// Collects what OpenJPEG reports through a codec's message handlers, so that its errors become the
/// text of typed errors and nothing reaches stderr (OpenJPEG itself prints nothing without handlers,
/// and handlers are per codec, so concurrent decodes never mix their messages).
///
/// Not thread-safe: one instance per codec, used on the thread that runs that codec (OpenJPEG calls
/// the handlers from the calling thread).
final class OpenJPEGMessages {
    /// The first error OpenJPEG reported, without its trailing newline.
    private(set) var firstError: String?
    /// Every warning, in order (at most a few dozen are kept).
    private(set) var warnings: [String] = []

    /// Installs this collector's handlers on `codec`. The collector must outlive the codec.
    func install(on codec: UnsafeMutablePointer<opj_codec_t?>) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        opj_set_error_handler(
            codec,
            { message, context in
                guard let message, let context else { return }
                Unmanaged<OpenJPEGMessages>.fromOpaque(context).takeUnretainedValue().record(
                    error: String(cString: message))
            }, context)
        opj_set_warning_handler(
            codec,
            { message, context in
                guard let message, let context else { return }
                Unmanaged<OpenJPEGMessages>.fromOpaque(context).takeUnretainedValue().record(
                    warning: String(cString: message))
            }, context)
        opj_set_info_handler(codec, { _, _ in }, nil)
    }

    /// The first error, or `fallback` when OpenJPEG said nothing.
    func errorText(or fallback: String) -> String {
        firstError ?? fallback
    }

    private func record(error: String) {
        if firstError == nil { firstError = error.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    private func record(warning: String) {
        if warnings.count < 32 { warnings.append(warning.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
