import Foundation
import Testing

@testable import TIP

/// A request that implements only the URL, to check the protocol's defaults.
private struct MinimalRequest: ImageFetchRequest {
    let imageURL: URL
}

@Suite("Fetch requests and sources")
struct ImageFetchRequestTests {
    let url = URL(string: "https://images.example/a/b.jpg?size=large")!

    @Test("TIP's source numbers and bits")
    func sourceBits() {
        #expect(ImageLoadSource.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(ImageFetchLoadingSources.memoryCache.rawValue == 2)
        #expect(ImageFetchLoadingSources.diskCache.rawValue == 4)
        #expect(ImageFetchLoadingSources.additionalCache.rawValue == 8)
        #expect(ImageFetchLoadingSources.network.rawValue == 16)
        #expect(ImageFetchLoadingSources.networkResumed.rawValue == 32)
        #expect(ImageFetchLoadingSources.all.rawValue == 0xFF)
        let cachesOnly: ImageFetchLoadingSources = [.memoryCache, .diskCache]
        #expect(cachesOnly.allows(.diskCache) && !cachesOnly.allows(.network))
        #expect(ImageFetchOptions.doNotResetExpiryOnAccess.rawValue == 1)
        #expect(ImageFetchOptions.treatAsPlaceholder.rawValue == 2)
        #expect(ImageFetchOptions.skipStoringToRenderedCache.rawValue == 4)
    }

    @Test("protocol defaults are TIP's")
    func defaults() {
        let request = MinimalRequest(imageURL: url)
        #expect(request.imageIdentifier == nil)
        #expect(request.resolvedImageIdentifier == url.absoluteString)
        #expect(request.targetDimensions == .zero)
        #expect(request.targetContentMode == .center)
        #expect(request.timeToLive == 2_592_000)
        #expect(request.options.isEmpty)
        #expect(request.loadingSources == .all)
        #expect(request.decoderConfigMap == nil)
        #expect(request.imageRequestHydrator == nil && request.imageRequestAuthorizer == nil)
    }

    @Test("a non-positive time to live falls back to 30 days")
    func timeToLive() {
        var request = GenericImageFetchRequest(imageURL: url)
        request.timeToLive = 0
        #expect(request.resolvedTimeToLive == ImageFetchRequestDefaults.timeToLive)
        request.timeToLive = 60
        #expect(request.resolvedTimeToLive == 60)
    }

    @Test("the generic request copies any request, and maps onto a download request")
    func genericAndDownloadMapping() {
        let hydrator = ImageRequestHydrator { _, _, done in done(nil, nil) }
        var source = GenericImageFetchRequest(
            imageURL: url, identifier: "id-1",
            targetDimensions: CGSize(width: 40, height: 30), targetContentMode: .scaleAspectFit)
        source.options = [.treatAsPlaceholder, .doNotResetExpiryOnAccess]
        source.loadingSources = [.memoryCache, .networkResumed]
        source.timeToLive = 120
        source.imageRequestHydrator = hydrator
        let copy = GenericImageFetchRequest(source)
        #expect(copy.imageIdentifier == "id-1" && copy.targetDimensions == CGSize(width: 40, height: 30))
        #expect(copy.targetContentMode == .scaleAspectFit && copy.options == source.options)
        #expect(copy.imageRequestHydrator === hydrator)

        let download = ImageDownloadRequest(fetchRequest: copy, pipeline: nil)
        #expect(download.identifier == "id-1")
        #expect(download.timeToLive == 120)
        #expect(download.isPlaceholder)
        #expect(!download.updatesExpiryOnAccess)
        #expect(download.allowsResume && !download.allowsFullDownload)
        #expect(download.hydrator === hydrator)
        #expect(download.joinKey == ImageDownloadRequest(fetchRequest: copy, pipeline: nil).joinKey)
    }
}
