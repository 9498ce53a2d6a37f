import COpenJPEG

/// What the OpenJPEG this process runs can be trusted with.
enum OpenJPEGVersion {
    /// The library's version, e.g. (2, 5, 0).
    static let current: (major: Int, minor: Int, patch: Int) = {
        let parts = String(cString: opj_version()).split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 }
        return (parts.count > 0 ? parts[0] : 0, parts.count > 1 ? parts[1] : 0, parts.count > 2 ? parts[2] : 0)
    }()

    /// Whether truncated codestreams may be decoded leniently (`opj_decoder_set_strict_mode(false)`).
    /// Before 2.5.3 that mode reads past a heap buffer on some damaged codestreams (OpenJPEG issue
    /// 1535, found again by our fuzzer on Debian 12's 2.5.0), so older versions decode strictly: a
    /// truncated codestream is then an error rather than a partial image.
    static let allowsPartialDecoding: Bool = {
        let (major, minor, patch) = current
        return (major, minor, patch) >= (2, 5, 3)
    }()
}
