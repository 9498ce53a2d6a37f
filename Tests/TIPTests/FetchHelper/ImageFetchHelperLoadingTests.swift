import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("ImageFetchHelper: appearing, resizing, request changes")
struct ImageFetchHelperLoadingTests {
    @Test("nothing is fetched while hidden; appearing loads the final image sized to the target, with debug strings")
    func appearLoadsFinal() async throws {
        let bed = try await FetchHelperTestBed(visible: false)
        try bed.serve("/photo.jpg")
        bed.dataSource.answers.withLock { $0.extraDebugLines = ["cell 7"] }
        bed.attach()
        #expect(!bed.helper.isLoading)
        #expect(bed.onQueue { bed.helper.debugInfoStrings() } == ["  0%", "Manual ", "cell 7"])

        // Appearing and looking in one block on the helper's queue: the fetch's callbacks, which come through
        // that queue, cannot end the load in between, however late a loaded machine runs this test.
        let loadingAtOnce = bed.onQueue {
            bed.target.isVisible = true
            bed.helper.triggerTargetWillAppear()
            bed.helper.triggerTargetDidAppear()
            return bed.helper.isLoading && bed.helper.debugInfoStrings()[1] == "Loading "
        }
        #expect(loadingAtOnce)
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(!bed.helper.isLoading)
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        #expect(bed.helper.fetchSource == .network)
        #expect(bed.helper.fetchResultDimensions == CGSize(width: 800, height: 600))
        #expect(bed.helper.fetchProgress == 1)
        #expect(bed.helper.didLoadAny && !bed.helper.fetchedImageTreatedAsPlaceholder)
        #expect(bed.helper.fetchedImageURL == bed.server.url(for: "/photo.jpg"))
        let request = try #require(bed.helper.fetchRequest)
        #expect(
            request.targetDimensions == CGSize(width: 200, height: 200) && request.targetContentMode == .scaleAspectFit)
        let events = bed.delegate.eventList
        #expect(events.first == "start")
        #expect(events.contains("network"))
        #expect(events.suffix(2) == ["final-image", "loaded:network"])

        let lines = bed.onQueue { bed.helper.debugInfoStrings() }
        #expect(lines[0].hasPrefix("100% public.jpeg ") && lines[0].hasSuffix("KB"))
        #expect(lines[1] == "Network done")
        #expect(lines.contains { $0.hasPrefix("Total: ") && $0.hasSuffix("s") })
        #expect(lines.contains { $0.hasPrefix("Pixels/Byte: ") })
        #expect(lines.last == "cell 7")
        #expect(bed.server.requestCount(for: "/photo.jpg") == 1)
        await bed.tearDown()
    }

    @Test("a target without a size or a data source without a pipeline fetches nothing")
    func nothingToFetch() async throws {
        let bed = try await FetchHelperTestBed(pixelSize: .zero)
        try bed.serve("/photo.jpg")
        bed.attach()
        #expect(!bed.helper.isLoading)
        bed.onQueue { bed.target.pixelSize = CGSize(width: 50, height: 50) }
        bed.dataSource.answers.withLock { $0.pipeline = nil }
        bed.appear()
        #expect(!bed.helper.isLoading && bed.helper.fetchRequest == nil)
        #expect(bed.server.requestCount(for: "/photo.jpg") == 0)
        await bed.tearDown()
    }

    @Test(
        """
        a resize refetches at the new size only when the data source opts in; the final image becomes a preview \
        meanwhile
        """
    )
    func resizeRefetches() async throws {
        let bed = try await FetchHelperTestBed()
        try bed.serve("/photo.jpg")
        bed.attach()
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })

        // Not opted in: nothing happens.
        let ignored = bed.onQueue {
            bed.target.pixelSize = CGSize(width: 100, height: 100)
            bed.helper.triggerTargetLayoutChanged()
            return (bed.helper.isLoading, bed.helper.fetchedImageIsFullLoad)
        }
        #expect(ignored == (false, true))

        bed.dataSource.answers.withLock { $0.refetchOnSizingChange = true }
        // Looked at in the same block as the change: the refetch (a memory hit) cannot land in between.
        let during = bed.onQueue {
            bed.helper.triggerTargetLayoutChanged()
            return (
                bed.helper.fetchedImageIsPreview, bed.helper.fetchedImageIsFullLoad, bed.helper.isLoading,
                bed.target.shownDimensions
            )
        }
        // The old image stays, downgraded, while the new size loads.
        #expect(during == (true, false, true, CGSize(width: 200, height: 150)))
        #expect(
            await eventually {
                bed.helper.fetchedImageIsFullLoad && bed.target.shownDimensions == CGSize(width: 100, height: 75)
            })
        #expect(bed.helper.fetchRequest?.targetDimensions == CGSize(width: 100, height: 100))
        #expect(bed.helper.fetchSource == .memoryCache)
        #expect(bed.server.requestCount(for: "/photo.jpg") == 1)

        // The same sizing again: no refetch.
        let again = bed.onQueue {
            bed.helper.triggerTargetLayoutChanged()
            return bed.helper.isLoading
        }
        #expect(!again && bed.helper.fetchedImageIsFullLoad)
        await bed.tearDown()
    }

    @Test("a resize during a fetch of the same URL keeps that download (headless) and fetches at the new size")
    func resizeWhileLoading() async throws {
        let bed = try await FetchHelperTestBed(stepped: true)
        let (_, jpeg) = try bed.stepped("slow.jpg", width: 320, height: 240)
        bed.dataSource.answers.withLock { $0.refetchOnSizingChange = true }
        bed.attach()
        let first = try #require(bed.helper.currentOperation)
        let download = try await bed.downloads.next()
        bed.onQueue {
            bed.target.pixelSize = CGSize(width: 80, height: 80)
            bed.helper.triggerTargetLayoutChanged()
        }
        let second = try #require(bed.helper.currentOperation)
        #expect(first !== second)
        #expect(first.delegate == nil)
        #expect(await eventually { second.state == .loadingFromNetwork })
        download.serve(jpeg)
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 80, height: 60))
        #expect(await eventually { first.isFinished })
        #expect(first.state == .succeeded)  // not cancelled: the two fetches shared one download
        #expect(!download.isCancelled)
        #expect(bed.downloads.count == 1)
        await bed.tearDown()
    }

    @Test("a request change cancels the fetch in flight, ignores its late callbacks, and loads the new image")
    func requestChange() async throws {
        let bed = try await FetchHelperTestBed(stepped: true)
        let (oldURL, _) = try bed.stepped("old.jpg", width: 320, height: 240)
        bed.attach()
        let old = try #require(bed.helper.currentOperation)
        #expect(old.request.imageURL == oldURL)
        let oldDownload = try await bed.downloads.next()  // never answered

        let (newURL, newJPEG) = try bed.stepped("new.jpg", width: 400, height: 400, seed: 2)
        bed.onQueue { bed.helper.dataSourceDidChange() }
        let newDownload = try await bed.downloads.next()
        #expect(newDownload.sentRequest?.url == newURL)
        newDownload.serve(newJPEG)
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 200))
        #expect(bed.helper.fetchedImageURL == newURL)
        #expect(await eventually { old.isFinished })
        #expect(old.state == .cancelled)
        #expect(await oldDownload.waitUntilCancelled())

        // A late callback of the old fetch changes nothing.
        let stale = ImageFetchResult(
            imageContainer: ImageContainer(image: TestImages.photo(width: 32, height: 24)), imageSource: .network,
            imageURL: oldURL, imageOriginalDimensions: CGSize(width: 32, height: 24),
            imageIsTreatedAsPlaceholder: false, imageWasTransformed: false, imageIdentifier: oldURL.absoluteString)
        let shownBefore = bed.delegate.shown.withLock { $0.count }
        bed.onQueue {
            bed.helper.operationDelegate.imageFetchOperation(old, didLoadFinalImage: stale)
            bed.helper.operationDelegate.imageFetchOperation(old, didUpdateProgressiveImage: stale, progress: 0.5)
            bed.helper.operationDelegate.imageFetchOperation(
                old, didFailToLoadFinalImage: ImageFetchError(.unknown, "late"))
        }
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 200))
        #expect(bed.helper.fetchError == nil)
        #expect(bed.delegate.shown.withLock { $0.count } == shownBefore)

        // The same request again: nothing changes.
        let unchanged = bed.onQueue {
            bed.helper.dataSourceDidChange()
            return bed.helper.isLoading
        }
        #expect(!unchanged && bed.helper.fetchedImageIsFullLoad)
        await bed.tearDown()
    }

    @Test("reusing a target for another helper: the old fetch goes headless, the new helper shows the image")
    func transition() async throws {
        let bed = try await FetchHelperTestBed(stepped: true)
        let (url, jpeg) = try bed.stepped("shared.jpg", width: 320, height: 240)
        bed.attach()
        let old = try #require(bed.helper.currentOperation)
        let download = try await bed.downloads.next()
        let source = FakeFetchDataSource(pipeline: bed.pipeline, url: url)
        let newHelper = ImageFetchHelper(delegate: nil, dataSource: source, configuration: bed.env.configuration)
        bed.onQueue { ImageFetchHelper.transitionTarget(bed.target, from: bed.helper, to: newHelper) }
        #expect(bed.helper.target == nil && !bed.helper.isLoading)
        #expect(old.delegate == nil)
        #expect(newHelper.target === bed.target && newHelper.isLoading)
        download.serve(jpeg)
        #expect(await eventually { newHelper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        #expect(await eventually { old.isFinished })
        #expect(old.state == .succeeded)  // headless, not cancelled
        #expect(bed.downloads.count == 1)
        bed.onQueue { newHelper.cancelFetchRequest() }
        await bed.tearDown()
    }
}
