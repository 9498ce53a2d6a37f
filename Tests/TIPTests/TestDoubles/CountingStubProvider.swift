import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import TIP

/// Wraps a stubbing provider, counting the downloads it is asked for.
final class CountingStubProvider: ImageFetchDownloadProvider {
    let stubs = StubbingImageFetchDownloadProvider()
    let count = Locked(0)

    init() { stubs.downloadStubbingEnabled = true }

    func imageFetchDownload(with context: any ImageFetchDownloadContext) -> any ImageFetchDownload {
        count.withLock { $0 += 1 }
        return stubs.imageFetchDownload(with: context)
    }

    /// Stubs `image` at `url`, resumable, paced so the whole body takes about `seconds`.
    func stub(_ image: HarnessImage, at url: URL, seconds: Double) {
        let bits = UInt64(max(64_000, Double(image.data.count * 8) / seconds))
        stubs.addDownloadStub(forRequestURL: url, responseData: image.data, responseMIMEType: image.mimeType,
                              shouldSupportResuming: true, suggestedBitrate: bits)
    }
}
