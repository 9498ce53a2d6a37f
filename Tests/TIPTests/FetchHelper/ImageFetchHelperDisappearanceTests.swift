import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("ImageFetchHelper: disappearance behaviours")
struct ImageFetchHelperDisappearanceTests {
    @Test("defaults are TIP's: unload on disappearance, background not treated as disappearance")
    func defaults() {
        let helper = ImageFetchHelper()
        #expect(helper.disappearanceBehavior == .unload)
        #expect(!helper.shouldTreatApplicationBackgroundAsViewDisappearance)
        #expect(ImageFetchHelper.DisappearanceBehavior.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
    }

    @Test("cancelImageFetch cancels the fetch in flight; reappearing fetches again")
    func cancelOnDisappear() async throws {
        let bed = try await FetchHelperTestBed(stepped: true)
        let (_, jpeg) = try bed.stepped("slow.jpg", width: 320, height: 240)
        bed.helper.disappearanceBehavior = .cancelImageFetch
        bed.attach()
        let first = try #require(bed.helper.currentOperation)
        // Half the image, then nothing: the download is in flight when the target disappears.
        let download = try await bed.downloads.next()
        download.respond(status: 200, headers: ["Content-Length": "\(jpeg.count)"])
        download.send(jpeg.prefix(jpeg.count / 2))
        #expect(await eventually { first.progress > 0 })
        bed.disappear()
        #expect(!bed.helper.isLoading)
        #expect(bed.helper.fetchRequest != nil)
        #expect(await eventually { first.isFinished })
        #expect(first.state == .cancelled)
        #expect(bed.helper.fetchError == nil)  // the helper's own cancellation is no failure
        #expect(await download.waitUntilCancelled())

        bed.appear()
        try await bed.downloads.next().serve(jpeg)
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        #expect(bed.downloads.count == 2)
        await bed.tearDown()
    }

    @Test(
        """
        lowerImageFetchPriority drops the fetch to -6 while hidden and restores the data source's priority on \
        appearance
        """
    )
    func lowerPriority() async throws {
        let bed = try await FetchHelperTestBed(stepped: true)
        let (_, jpeg) = try bed.stepped("slow.jpg", width: 320, height: 240)
        bed.helper.disappearanceBehavior = .lowerImageFetchPriority
        bed.dataSource.answers.withLock { $0.priority = .high }
        bed.attach()
        let operation = try #require(bed.helper.currentOperation)
        #expect(operation.priority == .high)
        let download = try await bed.downloads.next()
        #expect(download.priority == .high)
        bed.disappear()
        #expect(operation.priority.rawValue == -6)
        #expect(bed.helper.currentOperation === operation)
        #expect(await eventually { download.priority == .low })  // -6 is in the low bucket
        bed.appear()
        #expect(operation.priority == .high)
        #expect(bed.helper.currentOperation === operation)
        #expect(await eventually { download.priority == .high })
        download.serve(jpeg)
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(download.priorities == [.high, .low, .high])
        #expect(bed.downloads.count == 1)
        await bed.tearDown()
    }

    @Test("none keeps the fetch and the image")
    func none() async throws {
        let bed = try await FetchHelperTestBed(stepped: true)
        let (_, jpeg) = try bed.stepped("slow.jpg", width: 320, height: 240)
        bed.helper.disappearanceBehavior = .none
        bed.attach()
        let operation = try #require(bed.helper.currentOperation)
        let download = try await bed.downloads.next()
        bed.disappear()
        #expect(bed.helper.currentOperation === operation && operation.priority == .normal)
        download.serve(jpeg)
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        #expect(!download.isCancelled && download.priorities == [.normal])
        await bed.tearDown()
    }

    @Test("unload clears the image and resets; reappearing shows it again from the rendered cache")
    func unload() async throws {
        let bed = try await FetchHelperTestBed()
        try bed.serve("/photo.jpg")
        bed.attach()
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        bed.disappear()
        #expect(bed.target.shownDimensions == nil)
        #expect(!bed.helper.didLoadAny && bed.helper.fetchProgress == 0)
        #expect(bed.delegate.eventList.last == "reset")

        bed.appear()
        // A rendered-cache hit completes synchronously, inside the appearance.
        #expect(bed.helper.fetchedImageIsFullLoad)
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        #expect(bed.onQueue { bed.helper.debugInfoStrings() }.prefix(2) == ["100%", "RMem done"])
        #expect(bed.server.requestCount(for: "/photo.jpg") == 1)
        await bed.tearDown()
    }

    @Test("replaceWithPlaceholder leaves the image fitted into 180 x 180, flagged as a placeholder")
    func replaceWithPlaceholder() async throws {
        let bed = try await FetchHelperTestBed(pixelSize: CGSize(width: 400, height: 400))
        try bed.serve("/photo.jpg")
        bed.helper.disappearanceBehavior = .replaceWithPlaceholder
        bed.attach()
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 400, height: 300))
        bed.disappear()
        #expect(bed.target.shownDimensions == CGSize(width: 180, height: 135))
        #expect(bed.helper.fetchedImageTreatedAsPlaceholder)
        #expect(!bed.helper.fetchedImageIsFullLoad && !bed.helper.isLoading)

        bed.appear()
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        #expect(bed.target.shownDimensions == CGSize(width: 400, height: 300))
        #expect(!bed.helper.fetchedImageTreatedAsPlaceholder)
        await bed.tearDown()
    }

    @Test(
        """
        with background treated as disappearance, the image unloads 0.2 s after backgrounding and comes back in \
        the foreground
        """
    )
    func background() async throws {
        let bed = try await FetchHelperTestBed()
        try bed.serve("/photo.jpg")
        bed.attach()
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })

        bed.onQueue { bed.helper.triggerApplicationDidEnterBackground() }  // not opted in: nothing
        try await Task.sleep(for: .milliseconds(350))
        #expect(bed.target.shownDimensions != nil)

        bed.helper.shouldTreatApplicationBackgroundAsViewDisappearance = true
        // Still shown right after backgrounding (looked at in the same block: the 0.2 s cannot pass in between).
        let shownAtOnce = bed.onQueue {
            bed.helper.triggerApplicationDidEnterBackground()
            return bed.target.shownDimensions != nil
        }
        #expect(shownAtOnce)
        #expect(await eventually { bed.target.shownDimensions == nil })
        bed.onQueue { bed.helper.triggerApplicationWillEnterForeground() }
        #expect(bed.helper.fetchedImageIsFullLoad)
        #expect(bed.target.shownDimensions == CGSize(width: 200, height: 150))
        await bed.tearDown()
    }

    @Test("replacing a visible target runs the old one's disappearance and the new one's appearance")
    func replaceTarget() async throws {
        let bed = try await FetchHelperTestBed()
        try bed.serve("/photo.jpg")
        bed.attach()
        #expect(await eventually { bed.helper.fetchedImageIsFullLoad })
        let other = FakeFetchTarget(pixelSize: CGSize(width: 100, height: 100))
        bed.onQueue { bed.helper.target = other }
        #expect(bed.target.shownDimensions == nil)  // unloaded
        #expect(await eventually { other.shownDimensions == CGSize(width: 100, height: 75) })
        #expect(bed.helper.fetchedImageIsFullLoad)
        await bed.tearDown()
    }
}
