import Foundation

/// A download provider that can answer requests with canned responses instead of the network (TIP's
/// `TIPImageFetchDownloadProviderWithStubbingSupport`), for tests and demos.
///
/// Setting such a provider as `GlobalConfiguration.imageFetchDownloadProvider` clears its stubs and enables
/// stubbing; replacing it clears its stubs and disables stubbing.
public protocol ImageFetchDownloadProviderWithStubbingSupport: ImageFetchDownloadProvider {
    /// Whether downloads are answered from the stubs (true) or by the network (false).
    var downloadStubbingEnabled: Bool { get set }

    /// Answers requests for `requestURL` with `responseData` (nil or empty: 404) of type `mimeType`.
    /// `shouldSupportResuming` adds `Accept-Ranges: bytes` and honours `Range`/`If-Range`;
    /// `suggestedBitrate` paces the body in bits per second (0: as fast as possible).
    func addDownloadStub(
        forRequestURL requestURL: URL, responseData: Data?, responseMIMEType mimeType: String?,
        shouldSupportResuming: Bool, suggestedBitrate: UInt64)

    /// Removes the stub for `requestURL`.
    func removeDownloadStub(forRequestURL requestURL: URL)

    /// Removes every stub.
    func removeAllDownloadStubs()
}
