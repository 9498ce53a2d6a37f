import Foundation

// Beyond TIP: the limits on how long a download may take, enforced by the downloader itself whatever the
// download provider does, so that a slow or stalled origin can neither hold a download forever nor keep the
// download slots from other images.
extension GlobalConfiguration {
    /// The default for ``maxImageDownloadDuration``: 180 s (TIP's resource timeout).
    public static let defaultMaxImageDownloadDuration: TimeInterval = 180
    /// The default for ``minimumImageDownloadBytesPerSecond``: 1,024 bytes per second.
    public static let defaultMinimumImageDownloadBytesPerSecond = 1024
    /// The default for ``imageDownloadRateInterval``: 30 s.
    public static let defaultImageDownloadRateInterval: TimeInterval = 30

    /// The longest a download may run, in seconds, from the provider starting it to the last byte; past it the
    /// download fails with `ImageFetchError.Code.downloadTimedOut` and keeps what it got as a resumable partial.
    /// 0 or negative: no limit. Default 180 s.
    public var maxImageDownloadDuration: TimeInterval {
        get { settings.withLock { $0.maxImageDownloadDuration } }
        set { settings.withLock { $0.maxImageDownloadDuration = newValue } }
    }

    /// The slowest a download may go, in bytes per second, measured over each ``imageDownloadRateInterval``
    /// (the first one includes connecting and waiting for the response); a slower one fails with
    /// `ImageFetchError.Code.downloadTimedOut` and keeps what it got as a resumable partial. 0 or negative: no
    /// minimum. Default 1,024 bytes per second.
    public var minimumImageDownloadBytesPerSecond: Int {
        get { settings.withLock { $0.minimumImageDownloadBytesPerSecond } }
        set { settings.withLock { $0.minimumImageDownloadBytesPerSecond = newValue } }
    }

    /// The interval over which ``minimumImageDownloadBytesPerSecond`` is measured, in seconds: a download must
    /// receive at least rate × interval bytes in every such interval. Values below 0.05 s become 0.05 s.
    /// Default 30 s.
    public var imageDownloadRateInterval: TimeInterval {
        get { settings.withLock { $0.imageDownloadRateInterval } }
        set { settings.withLock { $0.imageDownloadRateInterval = max(0.05, newValue) } }
    }

    /// The time the limits above are measured in (real time unless a test installs its own).
    var downloadTimeSource: any DownloadTimeSource {
        get { settings.withLock { $0.downloadTimeSource } }
        set { settings.withLock { $0.downloadTimeSource = newValue } }
    }
}
