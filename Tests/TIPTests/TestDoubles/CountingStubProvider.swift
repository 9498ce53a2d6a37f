import Foundation

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Wraps a stubbing provider, counting the downloads it is asked for.
final class CountingStubProvider: ImageFetchDownloadProvider {
    let stubs = StubbingImageFetchDownloadProvider()
    let count = Locked(0)

    init() { stubs.downloadStubbingEnabled = true }

    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        count.withLock { $0 += 1 }
        return stubs.imageFetchDownload(with: context)
    }

    /// Stubs `image` at `url`, resumable, unpaced (a test that needs a download in flight steps one by hand:
    /// ``SteppedDownloadProvider``).
    func stub(_ image: HarnessImage, at url: URL) {
        stubs.addDownloadStub(
            forRequestURL: url, responseData: image.data, responseMIMEType: image.mimeType,
            shouldSupportResuming: true, suggestedBitrate: 0)
    }
}
