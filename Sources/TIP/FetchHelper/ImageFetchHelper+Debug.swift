import Foundation

extension ImageFetchHelper {
    /// Posted (object nil) when ``isDebugInfoVisible`` changes; user info ``debugInfoVisibleKey``: a `Bool`.
    public static let didUpdateDebugInfoVisibilityNotification = Notification.Name(
        "TIPImageViewDidUpdateDebugInfoVisibility")
    /// User-info key of the new visibility in ``didUpdateDebugInfoVisibilityNotification``.
    public static let debugInfoVisibleKey = "visible"

    private static let debugVisibility = Locked(false)

    /// Whether UIs should overlay ``debugInfoStrings()`` on their targets (the helper draws nothing itself).
    /// Default false; changes post ``didUpdateDebugInfoVisibilityNotification``.
    public static var isDebugInfoVisible: Bool {
        get { debugVisibility.withLock { $0 } }
        set {
            let changed = debugVisibility.withLock { visible -> Bool in
                defer { visible = newValue }
                return visible != newValue
            }
            guard changed else { return }
            NotificationCenter.default.post(
                name: didUpdateDebugInfoVisibilityNotification, object: nil,
                userInfo: [debugInfoVisibleKey: newValue])
        }
    }

    /// TIP's debug overlay lines: progress (with the downloaded type and size), source and kind (`Manual`,
    /// `RMem`, `Mem`, `Disk`, `Other`, `Network`, `NetResm` or `Loading`; `done`, `scan`, `preview` or `scaled`),
    /// the network time, the error as `domain:code`, pixels per byte, then the data source's extra lines.
    /// Call on the callback queue.
    public func debugInfoStrings() -> [String] {
        let state = guarded.withLock { $0 }
        let flags = state.flags
        var source = "Manual"
        var kind = ""
        var typeText = ""
        var bytesText = ""
        var pixelsPerByte: String?
        if flags.didLoadAny {
            kind = flags.isFinal ? "done" : flags.isProgressive ? "scan" : flags.isPreview ? "preview" : "scaled"
            source = Self.debugName(of: state.fetchSource, metrics: state.fetchMetrics)
            if flags.isFinal || flags.isProgressive, state.fetchSource.rawValue >= ImageLoadSource.network.rawValue {
                typeText = " " + (state.loadedImageType?.rawValue ?? "???")
                if let info = state.fetchMetrics?.metricInfo(for: state.fetchSource) {
                    if info.networkImageSizeInBytes > 0 {
                        bytesText = " " + Self.binaryByteCount(info.networkImageSizeInBytes)
                    }
                    if info.networkImagePixelsPerByte > 0 {
                        pixelsPerByte = "Pixels/Byte: " + String(format: "%.3f", info.networkImagePixelsPerByte)
                    }
                }
            }
        } else if state.operation != nil {
            source = "Loading"
        }
        let percent = Int(state.fetchProgress * 100)
        var lines = [String(format: "%3d%%", percent) + typeText + bytesText, "\(source) \(kind)"]
        if state.fetchSource.rawValue >= ImageLoadSource.network.rawValue,
            let total = state.fetchMetrics?.totalDuration, total > 0
        {
            lines.append("Total: " + String(format: "%.2fs", total))
        }
        if let error = state.fetchError {
            let described = error as NSError
            lines.append("\(described.domain):\(described.code)")
        }
        if let pixelsPerByte { lines.append(pixelsPerByte) }
        if let extra = state.dataSource?.additionalDebugInfoStrings(for: self) { lines += extra }
        return lines
    }

    private static func debugName(of source: ImageLoadSource, metrics: ImageFetchMetrics?) -> String {
        switch source {
        case .memoryCache: metrics?.metricInfo(for: .memoryCache)?.wasLoadedSynchronously == true ? "RMem" : "Mem"
        case .diskCache: "Disk"
        case .additionalCache: "Other"
        case .network: "Network"
        case .networkResumed: "NetResm"
        case .unknown: "???"
        }
    }

    /// `bytes` in binary units, e.g. `512 bytes`, `12.5 KB`, `3.1 MB`.
    static func binaryByteCount(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        let kilobytes = Double(bytes) / 1024
        if kilobytes < 1024 { return String(format: "%.1f KB", kilobytes) }
        return String(format: "%.1f MB", kilobytes / 1024)
    }
}
