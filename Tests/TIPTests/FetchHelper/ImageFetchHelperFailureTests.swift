import Foundation
import TIPImageServer
import Testing

@testable import TIP

// Serialized: `notifyAllFetchHelpersToRetryFailedLoads` reaches every failed helper in the process.
@Suite("ImageFetchHelper: failures, retries, reloads after other fetches", .serialized)
struct ImageFetchHelperFailureTests {
    @Test("a failure sets fetchError and tells the delegate; notifyAllFetchHelpersToRetryFailedLoads fetches again")
    func failureAndRetry() async throws {
        let bed = try await FetchHelperTestBed()
        let path = "/flaky.jpg"
        bed.server.setFault(.status(404), for: path)
        bed.dataSource.answers.withLock { $0.url = bed.server.url(for: path) }
        bed.attach()
        #expect(await eventually { bed.helper.fetchError != nil && !bed.helper.isLoading })
        let error = try #require(bed.helper.fetchError as? ImageFetchError)
        #expect(error.code == .httpTransactionError)
        #expect(bed.delegate.errors.withLock { $0.count } == 1)
        #expect(bed.onQueue { bed.helper.debugInfoStrings() }.contains("TIPImageFetchErrorDomain:2"))
        #expect(bed.helper.fetchMetrics != nil)

        bed.server.setFault(nil, for: path)
        try bed.serve(path)
        ImageFetchHelper.notifyAllFetchHelpersToRetryFailedLoads()
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.helper.fetchError == nil)
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        #expect(bed.server.requestCount(for: path) == 2)
        await bed.tearDown()
    }

    @Test("while idle without an image, another fetch storing the same URL makes the helper reload it")
    func reloadAfterForeignFetch() async throws {
        let bed = try await FetchHelperTestBed()
        let path = "/later.jpg"
        bed.server.setFault(.status(503), for: path)
        let url = bed.server.url(for: path)
        bed.dataSource.answers.withLock { $0.url = url }
        bed.attach()
        #expect(await eventually { bed.helper.fetchError != nil && !bed.helper.isLoading })

        bed.server.setFault(nil, for: path)
        try bed.serve(path)
        let other = GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: CGSize(width: 64, height: 64),
            targetContentMode: .scaleAspectFit)
        _ = try await bed.pipeline.fetchImage(for: other)
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        #expect(bed.helper.fetchSource == .memoryCache)
        #expect(bed.server.requestCount(for: path) == 2)  // the failure, then the other fetch's download
        await bed.tearDown()
    }

    @Test("a placeholder is replaced when a real image with its identifier is stored")
    func placeholderReplacedByStore() async throws {
        let bed = try await FetchHelperTestBed(stepped: true)
        let (url, jpeg) = try bed.stepped("real.jpg")
        bed.attach()
        #expect(bed.helper.isLoading)
        let abandoned = try await bed.downloads.next()
        // Show a placeholder while keeping the request and observing the pipeline, as a UI would after a timeout.
        bed.onQueue {
            bed.helper.cancelFetch()
            bed.helper.markAsIfPlaceholderNow()
            bed.target.fetchedImageContainer = ImageContainer(image: TestImages.photo(width: 20, height: 15))
        }
        #expect(await abandoned.waitUntilCancelled())
        let storing = bed.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, _ in }
        bed.pipeline.fetchImage(with: storing)
        try await bed.downloads.next().serve(jpeg)
        #expect(await eventually { storing.isFinished })
        #expect(storing.state == .succeeded)
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        #expect(!bed.helper.fetchedImageTreatedAsPlaceholder)
        await bed.tearDown()
    }
}
