import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download provider with stubbing support: with stubbing enabled, downloads are answered from in-memory
/// stubs (no network); otherwise they go to `fallback` (by default a `CurlImageFetchDownloadProvider`).
///
/// A stub answers 200 with its bytes, `Content-Type`, `Content-Length` and a fixed `Last-Modified`; a resumable
/// stub also sends `Accept-Ranges: bytes` and answers a `Range` request whose `If-Range` matches with 206 and
/// the rest of the bytes. A stub without bytes, and any URL without a stub, answers 404. Thread-safe.
///
/// ```swift
/// let stubs = StubbingImageFetchDownloadProvider()
/// GlobalConfiguration.shared.imageFetchDownloadProvider = stubs   // enables stubbing
/// stubs.addDownloadStub(forRequestURL: url, responseData: jpeg, responseMIMEType: "image/jpeg",
///                       shouldSupportResuming: true, suggestedBitrate: 8_000_000)
/// ```
public final class StubbingImageFetchDownloadProvider: ImageFetchDownloadProviderWithStubbingSupport {
    /// The `Last-Modified` value every stub sends.
    public static let stubLastModified = "Mon, 01 Jan 2024 00:00:00 GMT"

    struct Stub: Sendable {
        var data: Data
        var mimeType: String?
        var supportsResuming: Bool
        var bitsPerSecond: UInt64
    }

    private struct State {
        var enabled = false
        var stubs: [URL: Stub] = [:]
    }

    private let state = Locked(State())
    /// Where downloads go while stubbing is disabled.
    public let fallback: any ImageFetchDownloadProvider

    /// A provider sending unstubbed traffic (while stubbing is disabled) to `fallback` (by default a new
    /// `CurlImageFetchDownloadProvider`, which starts its thread only if it ever downloads).
    public init(fallback: any ImageFetchDownloadProvider = CurlImageFetchDownloadProvider()) {
        self.fallback = fallback
    }

    /// Whether downloads are answered from the stubs. Default false.
    public var downloadStubbingEnabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    /// Registers (or replaces) the stub for `requestURL`.
    public func addDownloadStub(
        forRequestURL requestURL: URL, responseData: Data?, responseMIMEType mimeType: String?,
        shouldSupportResuming: Bool, suggestedBitrate: UInt64
    ) {
        let stub = Stub(
            data: responseData ?? Data(), mimeType: mimeType, supportsResuming: shouldSupportResuming,
            bitsPerSecond: suggestedBitrate)
        state.withLock { $0.stubs[requestURL] = stub }
    }

    /// Removes the stub for `requestURL`.
    public func removeDownloadStub(forRequestURL requestURL: URL) {
        state.withLock { _ = $0.stubs.removeValue(forKey: requestURL) }
    }

    /// Removes every stub.
    public func removeAllDownloadStubs() {
        state.withLock { $0.stubs.removeAll() }
    }

    /// A stubbed download while stubbing is enabled, else the fallback's download.
    public func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        let (enabled, stubs) = state.withLock { ($0.enabled, $0.stubs) }
        guard enabled else { return fallback.imageFetchDownload(with: context) }
        return StubbedImageFetchDownload(context: context, lookUp: { stubs[$0] })
    }
}
